-- Brand identity that flows to Semrush (docs/decisions/0041): a brand's competitors, URLs, the
-- version of its identity markets follow, the aliases the upstream rejected, and the shell a deleted
-- brand left; a market's followed identity version. Additive only.
ALTER TABLE "brands" ADD COLUMN "competitors" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "brands" ADD COLUMN "urls" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "brands" ADD COLUMN "identity_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "brands" ADD COLUMN "rejected_aliases" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "brands" ADD COLUMN "retired_sub_workspace_id" text;--> statement-breakpoint
ALTER TABLE "markets" ADD COLUMN "identity_version" integer DEFAULT 0 NOT NULL;