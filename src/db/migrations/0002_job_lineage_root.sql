ALTER TABLE "jobs" ADD COLUMN "root_job_id" uuid;--> statement-breakpoint
CREATE INDEX "jobs_root_job_id_idx" ON "jobs" USING btree ("root_job_id");