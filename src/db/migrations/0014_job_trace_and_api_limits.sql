CREATE TABLE "api_rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"window_ends_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "trace_context" jsonb;--> statement-breakpoint
CREATE INDEX "api_rate_limits_window_ends_idx" ON "api_rate_limits" USING btree ("window_ends_at");