CREATE TABLE "model_set_changes" (
	"sub_workspace_id" text PRIMARY KEY NOT NULL,
	"changes" integer DEFAULT 0 NOT NULL,
	"in_flight" integer DEFAULT 0 NOT NULL,
	"hold_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "pool_free_bounds" (
	"org_id" uuid NOT NULL,
	"dimension" text NOT NULL,
	"free_below" integer,
	"learned_at" timestamp with time zone,
	"generation" integer DEFAULT 0 NOT NULL,
	"lowerings_in_flight" integer DEFAULT 0 NOT NULL,
	"lowering_until" timestamp with time zone,
	CONSTRAINT "pool_free_bounds_org_id_dimension_pk" PRIMARY KEY("org_id","dimension")
);
