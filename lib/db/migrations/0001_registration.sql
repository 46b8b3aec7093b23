CREATE TABLE "app"."agent_secrets" (
	"on_chain_listing_id" text PRIMARY KEY NOT NULL,
	"sealed" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"idempotency_key" text,
	"request_hash" text NOT NULL,
	"request" "bytea",
	"result" jsonb,
	"error" jsonb,
	"published_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."manifests" (
	"cid" text PRIMARY KEY NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_wallet_idempotency_key_index" ON "app"."jobs" USING btree ("wallet","idempotency_key");--> statement-breakpoint
CREATE INDEX "jobs_status_published_at_index" ON "app"."jobs" USING btree ("status","published_at");