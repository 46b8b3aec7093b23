ALTER TABLE "app"."runs" ADD COLUMN "output_sha256" text;--> statement-breakpoint
ALTER TABLE "app"."runs" ADD COLUMN "output_truncated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_output_retention_index" ON "app"."runs" USING btree ("finished_at") WHERE "app"."runs"."output" is not null;--> statement-breakpoint
ALTER TABLE "app"."runs" ADD CONSTRAINT "runs_output_sha256_iff_truncated" CHECK (("app"."runs"."output_sha256" is not null) = "app"."runs"."output_truncated");