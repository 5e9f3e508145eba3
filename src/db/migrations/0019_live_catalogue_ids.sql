-- Catalogue ids are the live ones now, UUID strings (docs/decisions/0035). The built-in simulator
-- used to serve its AI models with the ids 1 to 10; what Serenity stored from it — a market's
-- remembered model set, and the model ids of a create-market job not yet run — may hold them. Each
-- such id is rewritten to the live id of the same model key. Other values (live UUIDs, model keys)
-- are left as they are, so against live Semrush this changes nothing. Serenity stores no language
-- catalogue id (a market keeps its ISO code), so no language id moves.
WITH legacy ("id", "key", "live_id") AS (
  VALUES
    ('1', 'search-gpt', 'eab23d14-df70-463f-8779-3f6a4ba770bc'),
    ('2', 'gpt-5', '7e372c8f-d9a8-4255-a049-d4cd60772f20'),
    ('3', 'google-ai-overview', 'a041f7d9-abb7-4b02-9967-b37459ef0d80'),
    ('4', 'google-ai-mode', 'a31bd3b2-deb2-4e22-8191-9c255671835d'),
    ('5', 'gemini-2.5-flash', '58c396de-85a4-4f7f-adfb-240019c6375f'),
    ('6', 'claude-sonnet-4', '8663d87f-f2cc-43e6-851e-c5fc38527c9c'),
    ('7', 'perplexity', '4e0afe27-c9cc-4730-9dd1-f307309bafe3'),
    ('8', 'grok-3', 'b549432a-bb68-40d0-9901-6aeab4e975a2'),
    ('9', 'deepseek', '452163e0-dcd6-4f48-9610-192848e52694'),
    ('10', 'microsoft-copilot', '56423570-b83d-4dc9-a743-52f8521c986c')
),
-- One statement for both tables (a data-modifying WITH), so the mapping is written once.
remembered AS (
  UPDATE "market_models"
  SET "model_ids" = (
    SELECT coalesce(jsonb_agg(coalesce(legacy."live_id", element."value") ORDER BY element."position"), '[]'::jsonb)
    FROM jsonb_array_elements_text("market_models"."model_ids") WITH ORDINALITY AS element("value", "position")
    LEFT JOIN legacy ON legacy."id" = element."value"
  )
  WHERE jsonb_typeof("model_ids") = 'array'
    AND EXISTS (
      SELECT 1 FROM jsonb_array_elements_text("market_models"."model_ids") AS element("value")
      WHERE element."value" ~ '^[0-9]+$'
    )
  RETURNING 1
)
UPDATE "jobs"
SET "metadata" = jsonb_set(
  "metadata",
  '{input,modelIds}',
  (
    SELECT coalesce(jsonb_agg(coalesce(legacy."live_id", element."value") ORDER BY element."position"), '[]'::jsonb)
    FROM jsonb_array_elements_text("jobs"."metadata" #> '{input,modelIds}') WITH ORDINALITY AS element("value", "position")
    LEFT JOIN legacy ON legacy."id" = element."value"
  )
)
WHERE "status" = 'IN_PROGRESS'
  AND jsonb_typeof("metadata" #> '{input,modelIds}') = 'array'
  AND EXISTS (
    SELECT 1 FROM jsonb_array_elements_text("jobs"."metadata" #> '{input,modelIds}') AS element("value")
    WHERE element."value" ~ '^[0-9]+$'
  );
