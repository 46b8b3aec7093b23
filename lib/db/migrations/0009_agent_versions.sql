CREATE TABLE "app"."agent_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"on_chain_listing_id" text NOT NULL,
	"metadata_uri" text NOT NULL,
	"public_manifest" jsonb NOT NULL,
	"sealed" "bytea",
	"sealing_key_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "agent_versions_on_chain_listing_id_metadata_uri_index" ON "app"."agent_versions" USING btree ("on_chain_listing_id","metadata_uri");--> statement-breakpoint
-- Agents registered before versions: their registered version, whose private part is `agent_secrets`.
INSERT INTO "app"."agent_versions" ("id", "on_chain_listing_id", "metadata_uri", "public_manifest")
SELECT "on_chain_listing_id" || '/' || replace("metadata_uri", 'ipfs://', ''), "on_chain_listing_id", "metadata_uri", "public_manifest"
FROM "app"."agents";
