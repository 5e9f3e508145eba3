CREATE TABLE "idempotency_keys" (
	"org_id" text NOT NULL,
	"principal" text NOT NULL,
	"route" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"holder" uuid NOT NULL,
	"locked_until" timestamp with time zone,
	"response_status" integer,
	"response_body" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_org_id_principal_route_key_pk" PRIMARY KEY("org_id","principal","route","key")
);
--> statement-breakpoint
ALTER TABLE "brands" ADD COLUMN "name_key" text;--> statement-breakpoint
-- Existing brands (docs/decisions/0022): the oldest brand of each (org, name) takes the name's key;
-- brands that already shared a name keep NULL, so the constraint below never fails on old data and
-- no brand is renamed or dropped. The key is lower(btrim(name)), as insertBrand writes it.
UPDATE "brands" AS b SET "name_key" = ranked.key
FROM (
	SELECT "id", lower(btrim("name")) AS key,
		row_number() OVER (PARTITION BY "org_id", lower(btrim("name")) ORDER BY "created_at", "id") AS rank
	FROM "brands"
) AS ranked
WHERE ranked."id" = b."id" AND ranked.rank = 1;--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "brands" ADD CONSTRAINT "brands_org_name_key_unique" UNIQUE("org_id","name_key");