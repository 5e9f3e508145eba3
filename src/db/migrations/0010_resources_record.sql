CREATE TABLE "resource_observations" (
	"org_id" uuid NOT NULL,
	"workspace_id" text NOT NULL,
	"projects_used" integer NOT NULL,
	"projects_drafted" integer NOT NULL,
	"projects_total" integer NOT NULL,
	"prompts_used" integer NOT NULL,
	"prompts_drafted" integer NOT NULL,
	"prompts_total" integer NOT NULL,
	"title" text,
	"observed_at" timestamp with time zone NOT NULL,
	"refresh_claimed_until" timestamp with time zone,
	CONSTRAINT "resource_observations_org_id_workspace_id_pk" PRIMARY KEY("org_id","workspace_id")
);
--> statement-breakpoint
CREATE INDEX "resource_observations_org_observed_idx" ON "resource_observations" USING btree ("org_id","observed_at");