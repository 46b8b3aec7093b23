ALTER TABLE "app"."runs" ADD COLUMN "debit_submitted_block" bigint;--> statement-breakpoint
ALTER TABLE "app"."runs" ADD COLUMN "quarantined_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "app"."runs" ADD COLUMN "quarantine_reason" text;