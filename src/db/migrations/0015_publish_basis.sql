ALTER TABLE "allocation_publishes" ADD COLUMN "basis_read_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "allocation_publishes" ADD COLUMN "projects_used_bound" integer;--> statement-breakpoint
ALTER TABLE "allocation_publishes" ADD COLUMN "prompts_used_bound" integer;--> statement-breakpoint
ALTER TABLE "allocation_publishes" ADD COLUMN "projects_moved_in_window" integer;--> statement-breakpoint
ALTER TABLE "allocation_publishes" ADD COLUMN "prompts_moved_in_window" integer;