CREATE TABLE "app"."anchors" (
	"root" text PRIMARY KEY NOT NULL,
	"counts" jsonb NOT NULL,
	"status" text NOT NULL,
	"tx" text,
	"block" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "app"."runs_finished_at_index";--> statement-breakpoint
ALTER TABLE "app"."runs" ADD COLUMN "receipt_facts" jsonb;--> statement-breakpoint
ALTER TABLE "app"."runs" ADD COLUMN "receipt" jsonb;--> statement-breakpoint
ALTER TABLE "app"."runs" ADD COLUMN "anchor_root" text;--> statement-breakpoint
ALTER TABLE "app"."runs" ADD COLUMN "anchor_proof" jsonb;--> statement-breakpoint
CREATE INDEX "runs_anchor_root_index" ON "app"."runs" USING btree ("anchor_root");--> statement-breakpoint
CREATE INDEX "runs_finished_at_index" ON "app"."runs" USING btree ("finished_at") WHERE "app"."runs"."anchor_root" is null;