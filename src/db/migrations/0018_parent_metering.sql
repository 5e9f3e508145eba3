ALTER TABLE "resource_observations" ADD COLUMN "metering" text;--> statement-breakpoint
ALTER TABLE "resource_observations" ADD COLUMN "metering_as_of" timestamp with time zone;