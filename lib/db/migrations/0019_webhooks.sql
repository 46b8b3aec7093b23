-- Webhooks (docs/webhooks.md): wallets' endpoints, one delivery row per event and endpoint, and where
-- each follower of the projections stands. A run's event is enqueued by a trigger in the transaction
-- that makes the run's answer final, whichever part of the run ledger wrote it.
CREATE TABLE "app"."webhook_deliveries" (
	"id" text PRIMARY KEY DEFAULT ('msg_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24)) NOT NULL,
	"endpoint_id" text NOT NULL,
	"type" text NOT NULL,
	"event_key" text NOT NULL,
	"run_id" text,
	"data" text,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_response_status" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret" "bytea" NOT NULL,
	"sealing_key_id" text NOT NULL,
	"dropped_events" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."webhook_feeds" (
	"name" text PRIMARY KEY NOT NULL,
	"position" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "app"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_id_event_key_index" ON "app"."webhook_deliveries" USING btree ("endpoint_id","event_key");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_id_index" ON "app"."webhook_deliveries" USING btree ("endpoint_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_unsettled_index" ON "app"."webhook_deliveries" USING btree ("endpoint_id","status") WHERE "app"."webhook_deliveries"."status" in ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_index" ON "app"."webhook_deliveries" USING btree ("next_attempt_at") WHERE "app"."webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_leased_index" ON "app"."webhook_deliveries" USING btree ("lease_until") WHERE "app"."webhook_deliveries"."status" = 'sending';--> statement-breakpoint
CREATE INDEX "webhook_endpoints_wallet_created_at_index" ON "app"."webhook_endpoints" USING btree ("wallet","created_at");
--> statement-breakpoint
-- Enqueues an event for every endpoint of `recipient` subscribed to it, once per endpoint and `key`.
-- An endpoint already holding 10,000 deliveries not yet settled gets none, and counts it in
-- `dropped_events`. Answers how many deliveries were enqueued.
CREATE FUNCTION "app"."enqueue_webhook"(recipient text, event text, key text, run text, data text)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
	enqueued integer;
BEGIN
	WITH targets AS (
		SELECT e.id, (
			SELECT count(*) FROM (
				SELECT 1 FROM "app"."webhook_deliveries" d
				WHERE d.endpoint_id = e.id AND d.status IN ('pending', 'sending')
				LIMIT 10000
			) unsettled
		) >= 10000 AS is_full
		FROM "app"."webhook_endpoints" e
		WHERE e.wallet = recipient AND event = ANY (e.events)
	), dropped AS (
		UPDATE "app"."webhook_endpoints" SET dropped_events = dropped_events + 1
		WHERE id IN (SELECT id FROM targets WHERE is_full)
	)
	INSERT INTO "app"."webhook_deliveries" (endpoint_id, type, event_key, run_id, data)
	SELECT id, event, key, run, data FROM targets WHERE NOT is_full
	ON CONFLICT DO NOTHING;
	GET DIAGNOSTICS enqueued = ROW_COUNT;
	RETURN enqueued;
END
$$;
--> statement-breakpoint
CREATE FUNCTION "app"."enqueue_run_webhooks"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM "app"."enqueue_webhook"(NEW.wallet, 'run.' || NEW.status, 'run:' || NEW.id, NEW.id, NULL);
	RETURN NULL;
END
$$;
--> statement-breakpoint
-- A run's answer is final once it ended and its charge settled (`isAnswered`, lib/runLedger/runView.ts):
-- at its end, or at its debit's answer for a per-task run that delivered output.
CREATE TRIGGER "run_answered"
AFTER UPDATE OF status, charge ON "app"."runs"
FOR EACH ROW
WHEN (
	NEW.status IN ('completed', 'failed') AND NEW.charge NOT IN ('reserved', 'debit_pending')
	AND (OLD.status NOT IN ('completed', 'failed') OR OLD.charge IN ('reserved', 'debit_pending'))
)
EXECUTE FUNCTION "app"."enqueue_run_webhooks"();
