-- Every API process keeps catalogue answers in memory (api/listings/catalogueCache.ts): whatever
-- changes `agents` tells them on `agents_changed`, at commit, together with the change.
CREATE FUNCTION "app"."notify_agents_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('agents_changed', '');
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "agents_changed"
AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "app"."agents"
FOR EACH STATEMENT EXECUTE FUNCTION "app"."notify_agents_changed"();
