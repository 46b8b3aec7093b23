CREATE TABLE "app"."indexer_progress" (
	"views_schema" text PRIMARY KEY NOT NULL,
	"indexed_block" bigint,
	"chain_head" bigint,
	"behind_since" timestamp with time zone,
	"checked_at" timestamp with time zone NOT NULL
);
