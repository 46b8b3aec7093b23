-- Typo-tolerant search matches queries against titles, creator names and categories by trigram
-- similarity (pg_trgm, a trusted extension: the database's owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE TABLE "app"."listing_ratings" (
	"on_chain_listing_id" text PRIMARY KEY NOT NULL,
	"rating_sum" integer NOT NULL,
	"review_count" integer NOT NULL,
	"rating" double precision GENERATED ALWAYS AS (case when review_count = 0 then 0 else rating_sum::float8 / review_count end) STORED
);
--> statement-breakpoint
CREATE TABLE "app"."reviews" (
	"id" text PRIMARY KEY NOT NULL,
	"on_chain_listing_id" text NOT NULL,
	"wallet" text NOT NULL,
	"rating" integer NOT NULL,
	"text" text NOT NULL,
	"reply" text,
	"replied_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."agents" drop column "search_document";--> statement-breakpoint
ALTER TABLE "app"."agents" ADD COLUMN "search_document" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', description), 'B') || setweight(to_tsvector('english', creator_display_name || ' ' || category), 'C')) STORED;--> statement-breakpoint
CREATE INDEX "agents_search_document_index" ON "app"."agents" USING gin ("search_document");--> statement-breakpoint
ALTER TABLE "app"."agents" ADD COLUMN "search_names" text GENERATED ALWAYS AS (title || ' ' || creator_display_name || ' ' || category) STORED;--> statement-breakpoint
CREATE UNIQUE INDEX "reviews_on_chain_listing_id_wallet_index" ON "app"."reviews" USING btree ("on_chain_listing_id","wallet");--> statement-breakpoint
CREATE INDEX "reviews_on_chain_listing_id_updated_at_index" ON "app"."reviews" USING btree ("on_chain_listing_id","updated_at");--> statement-breakpoint
CREATE INDEX "agents_search_names_index" ON "app"."agents" USING gin ("search_names" gin_trgm_ops);--> statement-breakpoint
-- Catalogue answers kept in API processes show ratings: a changed rating tells them on
-- `listing_ratings_changed`, at commit, as `agents_changed` does for agents.
CREATE FUNCTION "app"."notify_listing_ratings_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('listing_ratings_changed', '');
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "listing_ratings_changed"
AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "app"."listing_ratings"
FOR EACH STATEMENT EXECUTE FUNCTION "app"."notify_listing_ratings_changed"();
