ALTER TABLE "markets" ALTER COLUMN "project_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "markets" ADD COLUMN "status" text DEFAULT 'ready' NOT NULL;