CREATE TABLE "upstream_orphan_sightings" (
	"org_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"upstream_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "upstream_orphan_sightings_org_id_kind_upstream_id_pk" PRIMARY KEY("org_id","kind","upstream_id")
);
--> statement-breakpoint
CREATE TABLE "upstream_reconcile_runs" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"holder" uuid,
	"lease_expires_at" timestamp with time zone,
	"last_finished_at" timestamp with time zone
);
