-- The pace of background passes per org (docs/decisions/0042): when an org was last used, the pool
-- sampler's per-org run lease, and what the reconciler's last run cost. Additive only.
CREATE TABLE "org_activity" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"active_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pool_sample_runs" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"holder" uuid,
	"lease_expires_at" timestamp with time zone,
	"last_finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "upstream_reconcile_runs" ADD COLUMN "last_calls" integer;