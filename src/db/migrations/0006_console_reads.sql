CREATE TABLE "pool_samples" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"projects" jsonb NOT NULL,
	"prompts" jsonb NOT NULL,
	"sampled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "pool_samples_org_sampled_idx" ON "pool_samples" USING btree ("org_id","sampled_at");--> statement-breakpoint
CREATE INDEX "jobs_org_created_idx" ON "jobs" USING btree ("org_id","created_at","id");