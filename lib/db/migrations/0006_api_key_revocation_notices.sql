-- Every API process caches active keys by hash (api/auth/apiKeyCache.ts): whatever stops a key
-- being usable, the revocation route or anything else, tells them on `api_key_revoked`, at commit.
CREATE FUNCTION "app"."notify_api_key_revoked"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('api_key_revoked', OLD.id);
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "api_key_revoked"
AFTER UPDATE OF "revoked_at", "key_hash", "wallet" OR DELETE ON "app"."api_keys"
FOR EACH ROW EXECUTE FUNCTION "app"."notify_api_key_revoked"();
