-- What each API key may do (api/middleware/requireScope.ts). Keys made before scopes existed could do
-- everything, and clients rely on that: they keep all three. New keys always name their scopes.
ALTER TABLE "app"."api_keys" ADD COLUMN "scopes" text[] DEFAULT '{run,read,create}' NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."api_keys" ALTER COLUMN "scopes" DROP DEFAULT;
