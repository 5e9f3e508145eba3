ALTER TABLE "resource_observations" ADD COLUMN "version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "announced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "announced_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "basis_read_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "projects_used_bound" integer;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "prompts_used_bound" integer;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "projects_moved_in_window" integer;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "prompts_moved_in_window" integer;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "bound_loose" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "projects_free_below" integer;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "projects_free_learned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "prompts_free_below" integer;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "prompts_free_learned_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "resource_observations_workspace_idx" ON "resource_observations" USING btree ("workspace_id");--> statement-breakpoint
-- Backfill (docs/decisions/0046): the three tables' rows copied onto the entries, an entry that
-- holds no read yet made with the "not read" time (1970-01-01, which every view skips). A
-- workspace published into is a brand's sub-workspace or (a flat brand's) its org's parent; a
-- pool's entry is its org's parent.
INSERT INTO "resource_observations" AS r ("org_id", "workspace_id", "projects_used", "projects_drafted", "projects_total", "prompts_used", "prompts_drafted", "prompts_total", "observed_at", "published_at", "basis_read_at", "projects_used_bound", "prompts_used_bound", "projects_moved_in_window", "prompts_moved_in_window", "bound_loose")
SELECT w."org_id", p."sub_workspace_id", 0, 0, 0, 0, 0, 0, '1970-01-01T00:00:00Z', p."published_at", p."basis_read_at", p."projects_used_bound", p."prompts_used_bound", p."projects_moved_in_window", p."prompts_moved_in_window", p."bound_loose"
FROM "allocation_publishes" p JOIN (SELECT "org_id", "sub_workspace_id" AS "workspace_id" FROM "brands" WHERE "sub_workspace_id" IS NOT NULL UNION ALL SELECT "id", "parent_workspace_id" FROM "orgs" WHERE "parent_workspace_id" IS NOT NULL) w ON w."workspace_id" = p."sub_workspace_id"
ON CONFLICT ("org_id", "workspace_id") DO UPDATE SET "published_at" = excluded."published_at", "basis_read_at" = excluded."basis_read_at", "projects_used_bound" = excluded."projects_used_bound", "prompts_used_bound" = excluded."prompts_used_bound", "projects_moved_in_window" = excluded."projects_moved_in_window", "prompts_moved_in_window" = excluded."prompts_moved_in_window", "bound_loose" = excluded."bound_loose";
--> statement-breakpoint
INSERT INTO "resource_observations" AS r ("org_id", "workspace_id", "projects_used", "projects_drafted", "projects_total", "prompts_used", "prompts_drafted", "prompts_total", "observed_at", "version", "announced", "announced_until")
SELECT w."org_id", c."sub_workspace_id", 0, 0, 0, 0, 0, 0, '1970-01-01T00:00:00Z', c."changes", c."in_flight", c."hold_until"
FROM "model_set_changes" c JOIN (SELECT "org_id", "sub_workspace_id" AS "workspace_id" FROM "brands" WHERE "sub_workspace_id" IS NOT NULL UNION ALL SELECT "id", "parent_workspace_id" FROM "orgs" WHERE "parent_workspace_id" IS NOT NULL) w ON w."workspace_id" = c."sub_workspace_id"
ON CONFLICT ("org_id", "workspace_id") DO UPDATE SET "version" = excluded."version", "announced" = excluded."announced", "announced_until" = excluded."announced_until";
--> statement-breakpoint
-- A pool's two dimensions share one entry: its version is their versions' sum (it moves whenever
-- either moves), its lowerings in flight their sum (a lowering of both counted twice ends later:
-- the side that holds back longer).
INSERT INTO "resource_observations" AS r ("org_id", "workspace_id", "projects_used", "projects_drafted", "projects_total", "prompts_used", "prompts_drafted", "prompts_total", "observed_at", "version", "announced", "announced_until", "projects_free_below", "projects_free_learned_at", "prompts_free_below", "prompts_free_learned_at")
SELECT o."id", o."parent_workspace_id", 0, 0, 0, 0, 0, 0, '1970-01-01T00:00:00Z', sum(f."generation"), sum(f."lowerings_in_flight"), max(f."lowering_until"),
  max(f."free_below") FILTER (WHERE f."dimension" = 'projects'), max(f."learned_at") FILTER (WHERE f."dimension" = 'projects'),
  max(f."free_below") FILTER (WHERE f."dimension" = 'prompts'), max(f."learned_at") FILTER (WHERE f."dimension" = 'prompts')
FROM "pool_free_bounds" f JOIN "orgs" o ON o."id" = f."org_id" AND o."parent_workspace_id" IS NOT NULL
GROUP BY o."id", o."parent_workspace_id"
ON CONFLICT ("org_id", "workspace_id") DO UPDATE SET "version" = excluded."version", "announced" = excluded."announced", "announced_until" = excluded."announced_until", "projects_free_below" = excluded."projects_free_below", "projects_free_learned_at" = excluded."projects_free_learned_at", "prompts_free_below" = excluded."prompts_free_below", "prompts_free_learned_at" = excluded."prompts_free_learned_at";
