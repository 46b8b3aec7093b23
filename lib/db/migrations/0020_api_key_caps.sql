-- Spend limits of an API key (docs/decisions.md, "Spend limits on an API key"): a cap per UTC day on
-- the per-task runs it starts, summed over its runs by their key, and the only listings it may run.
ALTER TABLE "app"."api_keys" ADD COLUMN "daily_spend_cap_wei" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "app"."api_keys" ADD COLUMN "allowed_listings" text[];--> statement-breakpoint
ALTER TABLE "app"."runs" ADD COLUMN "api_key_id" text;--> statement-breakpoint
CREATE INDEX "runs_api_key_id_created_at_index" ON "app"."runs" USING btree ("api_key_id","created_at") WHERE "app"."runs"."api_key_id" is not null;