CREATE TABLE "market_models" (
	"market_id" uuid PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"model_ids" jsonb NOT NULL,
	"known_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "market_tags" (
	"market_id" uuid NOT NULL,
	"project_id" text NOT NULL,
	"tag_key" text NOT NULL,
	"tag_id" text NOT NULL,
	"known_at" timestamp with time zone NOT NULL,
	CONSTRAINT "market_tags_market_id_tag_key_pk" PRIMARY KEY("market_id","tag_key")
);
--> statement-breakpoint
ALTER TABLE "market_models" ADD CONSTRAINT "market_models_market_id_markets_id_fk" FOREIGN KEY ("market_id") REFERENCES "public"."markets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "market_tags" ADD CONSTRAINT "market_tags_market_id_markets_id_fk" FOREIGN KEY ("market_id") REFERENCES "public"."markets"("id") ON DELETE cascade ON UPDATE no action;