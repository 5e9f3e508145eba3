CREATE TABLE "allocation_publishes" (
	"sub_workspace_id" text PRIMARY KEY NOT NULL,
	"published_at" timestamp with time zone NOT NULL
);
