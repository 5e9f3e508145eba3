-- The fold's second release (docs/decisions/0047): from this release on the entries of the
-- resources record are what allocation reads. The copy of migration 0024 runs again first, so
-- that what the release before the fold wrote to the three tables alone while it still ran beside
-- the fold's first release is on the entries too. Never backwards: a publish only where the
-- table's is newer; a version only raised; of the two counts in flight, the larger of those whose
-- hold is not over; a pool bound kept only where both places know one (the larger, learned at the
-- earlier time: the weaker claim, which both places' facts make true).
INSERT INTO "resource_observations" AS r ("org_id", "workspace_id", "projects_used", "projects_drafted", "projects_total", "prompts_used", "prompts_drafted", "prompts_total", "observed_at", "published_at", "basis_read_at", "projects_used_bound", "prompts_used_bound", "projects_moved_in_window", "prompts_moved_in_window", "bound_loose")
SELECT w."org_id", p."sub_workspace_id", 0, 0, 0, 0, 0, 0, '1970-01-01T00:00:00Z', p."published_at", p."basis_read_at", p."projects_used_bound", p."prompts_used_bound", p."projects_moved_in_window", p."prompts_moved_in_window", p."bound_loose"
FROM "allocation_publishes" p JOIN (SELECT "org_id", "sub_workspace_id" AS "workspace_id" FROM "brands" WHERE "sub_workspace_id" IS NOT NULL UNION ALL SELECT "id", "parent_workspace_id" FROM "orgs" WHERE "parent_workspace_id" IS NOT NULL) w ON w."workspace_id" = p."sub_workspace_id"
ON CONFLICT ("org_id", "workspace_id") DO UPDATE SET "published_at" = excluded."published_at", "basis_read_at" = excluded."basis_read_at", "projects_used_bound" = excluded."projects_used_bound", "prompts_used_bound" = excluded."prompts_used_bound", "projects_moved_in_window" = excluded."projects_moved_in_window", "prompts_moved_in_window" = excluded."prompts_moved_in_window", "bound_loose" = excluded."bound_loose"
WHERE r."published_at" IS NULL OR excluded."published_at" > r."published_at";
--> statement-breakpoint
INSERT INTO "resource_observations" AS r ("org_id", "workspace_id", "projects_used", "projects_drafted", "projects_total", "prompts_used", "prompts_drafted", "prompts_total", "observed_at", "version", "announced", "announced_until")
SELECT w."org_id", c."sub_workspace_id", 0, 0, 0, 0, 0, 0, '1970-01-01T00:00:00Z', c."changes", c."in_flight", c."hold_until"
FROM "model_set_changes" c JOIN (SELECT "org_id", "sub_workspace_id" AS "workspace_id" FROM "brands" WHERE "sub_workspace_id" IS NOT NULL UNION ALL SELECT "id", "parent_workspace_id" FROM "orgs" WHERE "parent_workspace_id" IS NOT NULL) w ON w."workspace_id" = c."sub_workspace_id"
ON CONFLICT ("org_id", "workspace_id") DO UPDATE SET "version" = greatest(r."version", excluded."version"), "announced" = greatest(CASE WHEN r."announced_until" > now() THEN r."announced" ELSE 0 END, CASE WHEN excluded."announced_until" > now() THEN excluded."announced" ELSE 0 END), "announced_until" = greatest(r."announced_until", excluded."announced_until");
--> statement-breakpoint
INSERT INTO "resource_observations" AS r ("org_id", "workspace_id", "projects_used", "projects_drafted", "projects_total", "prompts_used", "prompts_drafted", "prompts_total", "observed_at", "version", "announced", "announced_until", "projects_free_below", "projects_free_learned_at", "prompts_free_below", "prompts_free_learned_at")
SELECT o."id", o."parent_workspace_id", 0, 0, 0, 0, 0, 0, '1970-01-01T00:00:00Z', sum(f."generation"), sum(f."lowerings_in_flight"), max(f."lowering_until"),
  max(f."free_below") FILTER (WHERE f."dimension" = 'projects'), max(f."learned_at") FILTER (WHERE f."dimension" = 'projects'),
  max(f."free_below") FILTER (WHERE f."dimension" = 'prompts'), max(f."learned_at") FILTER (WHERE f."dimension" = 'prompts')
FROM "pool_free_bounds" f JOIN "orgs" o ON o."id" = f."org_id" AND o."parent_workspace_id" IS NOT NULL
GROUP BY o."id", o."parent_workspace_id"
ON CONFLICT ("org_id", "workspace_id") DO UPDATE SET "version" = greatest(r."version", excluded."version"), "announced" = greatest(CASE WHEN r."announced_until" > now() THEN r."announced" ELSE 0 END, CASE WHEN excluded."announced_until" > now() THEN excluded."announced" ELSE 0 END), "announced_until" = greatest(r."announced_until", excluded."announced_until"),
  "projects_free_below" = CASE WHEN r."projects_free_below" IS NULL OR excluded."projects_free_below" IS NULL THEN NULL ELSE greatest(r."projects_free_below", excluded."projects_free_below") END, "projects_free_learned_at" = least(r."projects_free_learned_at", excluded."projects_free_learned_at"),
  "prompts_free_below" = CASE WHEN r."prompts_free_below" IS NULL OR excluded."prompts_free_below" IS NULL THEN NULL ELSE greatest(r."prompts_free_below", excluded."prompts_free_below") END, "prompts_free_learned_at" = least(r."prompts_free_learned_at", excluded."prompts_free_learned_at");
