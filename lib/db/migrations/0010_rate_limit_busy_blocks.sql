DROP FUNCTION "app"."lease_rate_limit"(text, bigint, integer, integer, integer, integer, integer);--> statement-breakpoint
-- Leases units of a subject's window to a process (docs/decisions.md, "Rate limits across
-- processes"). `needed` units go to requests waiting now, so they are spent at once. A block beyond
-- them goes to a process that was alone in leasing since its last lease (`seen`), or that is busy
-- (the subject's requests overlap in it), never more than half of what is left, so
-- the last units go one by one. Blocks of busy processes stand side by side; a process that is not
-- busy, or that cannot get the units it needs, recalls the blocks others hold.
CREATE FUNCTION "app"."lease_rate_limit"(
	p_subject text,
	p_window_start bigint,
	p_limit integer,
	p_needed integer,
	p_wanted integer,
	p_seen integer,
	p_busy boolean,
	p_closing integer
) RETURNS TABLE (leased integer, granted integer, outstanding integer)
LANGUAGE plpgsql AS $$
DECLARE
	w "app"."rate_limit_windows"%ROWTYPE;
	left_over integer;
	n integer;
	created integer;
BEGIN
	INSERT INTO "app"."rate_limit_windows" ("subject", "window_start", "granted", "outstanding")
	VALUES (p_subject, p_window_start, 0, 0)
	ON CONFLICT DO NOTHING;
	GET DIAGNOSTICS created = ROW_COUNT;
	IF created > 0 AND random() < 0.01 THEN
		DELETE FROM "app"."rate_limit_windows" WHERE "window_start" < p_window_start - 60;
	END IF;
	SELECT * INTO w FROM "app"."rate_limit_windows"
	WHERE "subject" = p_subject AND "window_start" = p_window_start
	FOR UPDATE;
	w.outstanding := greatest(w.outstanding - p_closing, 0);
	left_over := greatest(p_limit - w.granted, 0);
	n := least(left_over, greatest(
		p_needed,
		CASE WHEN p_busy OR w.granted = p_seen THEN least(p_wanted, left_over / 2) ELSE 0 END
	));
	IF w.outstanding > 0 AND (NOT p_busy OR n < p_needed) THEN
		PERFORM pg_notify('rate_limit_recall', p_window_start || ' ' || p_subject);
	END IF;
	IF n > 0 OR p_closing > 0 THEN
		UPDATE "app"."rate_limit_windows"
		SET "granted" = w.granted + n, "outstanding" = w.outstanding + n - least(n, p_needed)
		WHERE "subject" = p_subject AND "window_start" = p_window_start;
	END IF;
	RETURN QUERY SELECT n, w.granted + n, w.outstanding + n - least(n, p_needed);
END
$$;
