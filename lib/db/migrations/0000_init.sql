CREATE SCHEMA "app";
--> statement-breakpoint
CREATE TABLE "app"."agents" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"on_chain_listing_id" text NOT NULL,
	"creator" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"sample_output" jsonb NOT NULL,
	"creator_display_name" text NOT NULL,
	"metadata_uri" text NOT NULL,
	"public_manifest" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search_document" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', description), 'B')) STORED,
	CONSTRAINT "agents_onChainListingId_unique" UNIQUE("on_chain_listing_id")
);
--> statement-breakpoint
CREATE TABLE "app"."api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"label" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_preview" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_keyHash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "app"."auth_challenges" (
	"challenge" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "app"."rate_limit_windows" (
	"subject" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_limit_windows_subject_window_start_pk" PRIMARY KEY("subject","window_start")
);
--> statement-breakpoint
CREATE INDEX "agents_search_document_index" ON "app"."agents" USING gin ("search_document");--> statement-breakpoint
CREATE INDEX "agents_category_index" ON "app"."agents" USING btree ("category");--> statement-breakpoint
CREATE INDEX "agents_creator_index" ON "app"."agents" USING btree ("creator");--> statement-breakpoint
CREATE INDEX "api_keys_wallet_created_at_index" ON "app"."api_keys" USING btree ("wallet","created_at");--> statement-breakpoint
CREATE INDEX "auth_challenges_expires_at_index" ON "app"."auth_challenges" USING btree ("expires_at");