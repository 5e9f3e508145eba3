-- Unlogged (ADR 0019): the budget is coordination state of the last seconds; no WAL per upstream
-- call, and after a database crash the tables come back empty and the slots are made anew.
CREATE UNLOGGED TABLE "upstream_budget_adaptive" (
	"account_key" text NOT NULL,
	"endpoint_group" text NOT NULL,
	"lowered" integer NOT NULL,
	"lowered_at" timestamp with time zone NOT NULL,
	CONSTRAINT "upstream_budget_adaptive_account_key_endpoint_group_pk" PRIMARY KEY("account_key","endpoint_group")
);
--> statement-breakpoint
CREATE UNLOGGED TABLE "upstream_budget_slots" (
	"account_key" text NOT NULL,
	"endpoint_group" text NOT NULL,
	"slot" integer NOT NULL,
	"holder" uuid,
	"holder_priority" integer,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"lease_expires_at" timestamp with time zone,
	CONSTRAINT "upstream_budget_slots_account_key_endpoint_group_slot_pk" PRIMARY KEY("account_key","endpoint_group","slot")
);
--> statement-breakpoint
CREATE UNLOGGED TABLE "upstream_budget_waiters" (
	"account_key" text NOT NULL,
	"endpoint_group" text NOT NULL,
	"waiter" uuid NOT NULL,
	"priority" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "upstream_budget_waiters_account_key_endpoint_group_waiter_priority_pk" PRIMARY KEY("account_key","endpoint_group","waiter","priority")
);
