-- Who deleted which prompts of a market, and when (spec/api.md §5, docs/decisions/0040). Additive only.
CREATE TABLE "prompt_deletions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"brand_id" uuid NOT NULL,
	"market_id" uuid NOT NULL,
	"prompt_ids" jsonb NOT NULL,
	"actor" text NOT NULL,
	"request_id" text,
	"deleted_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "prompt_deletions_brand_idx" ON "prompt_deletions" USING btree ("brand_id","deleted_at");