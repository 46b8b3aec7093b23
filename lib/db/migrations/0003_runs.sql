CREATE SEQUENCE "app"."run_sequence" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "app"."execution_limits" (
	"on_chain_listing_id" text PRIMARY KEY NOT NULL,
	"requests_per_minute" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."run_id_epoch" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"epoch" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."runs" (
	"id" text PRIMARY KEY NOT NULL,
	"on_chain_run_id" numeric(78, 0) NOT NULL,
	"wallet" text NOT NULL,
	"on_chain_listing_id" text NOT NULL,
	"rental_model" text NOT NULL,
	"priority" text NOT NULL,
	"status" text NOT NULL,
	"charge" text NOT NULL,
	"reserved_wei" numeric(78, 0) DEFAULT '0' NOT NULL,
	"cost_wei" numeric(78, 0) DEFAULT '0' NOT NULL,
	"idempotency_key" text,
	"request_hash" text NOT NULL,
	"request" jsonb,
	"output" jsonb,
	"failure" text,
	"duration_ms" integer,
	"lease_until" timestamp with time zone,
	"debit_tx" text,
	"debit_block" bigint,
	"logged" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "runs_onChainRunId_unique" UNIQUE("on_chain_run_id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "runs_wallet_idempotency_key_index" ON "app"."runs" USING btree ("wallet","idempotency_key");--> statement-breakpoint
CREATE INDEX "runs_on_chain_listing_id_status_index" ON "app"."runs" USING btree ("on_chain_listing_id","status");--> statement-breakpoint
CREATE INDEX "runs_on_chain_listing_id_wallet_charge_index" ON "app"."runs" USING btree ("on_chain_listing_id","wallet","charge");--> statement-breakpoint
CREATE INDEX "runs_charge_index" ON "app"."runs" USING btree ("charge");--> statement-breakpoint
CREATE INDEX "runs_status_lease_until_index" ON "app"."runs" USING btree ("status","lease_until");--> statement-breakpoint
CREATE INDEX "runs_finished_at_index" ON "app"."runs" USING btree ("finished_at") WHERE not "app"."runs"."logged";--> statement-breakpoint
INSERT INTO "app"."run_id_epoch" ("epoch") VALUES (floor(random() * 4611686018427387904)::bigint);
