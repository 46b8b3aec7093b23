ALTER TABLE "app"."agent_secrets" ADD COLUMN "sealing_key_id" text;--> statement-breakpoint
ALTER TABLE "app"."jobs" ADD COLUMN "sealing_key_id" text;