-- API processes keep each listing's execution facts with their catalogue answers
-- (api/listings/catalogueCache.ts): a changed execution limit tells them on
-- `execution_limits_changed`, at commit, as `agents_changed` does for agents.
CREATE FUNCTION "app"."notify_execution_limits_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('execution_limits_changed', '');
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "execution_limits_changed"
AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "app"."execution_limits"
FOR EACH STATEMENT EXECUTE FUNCTION "app"."notify_execution_limits_changed"();
