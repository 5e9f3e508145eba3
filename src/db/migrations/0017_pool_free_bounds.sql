CREATE TABLE "pool_free_bounds" (
	"org_id" uuid NOT NULL,
	"dimension" text NOT NULL,
	"free_below" integer,
	"learned_at" timestamp with time zone,
	"generation" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "pool_free_bounds_org_id_dimension_pk" PRIMARY KEY("org_id","dimension")
);
