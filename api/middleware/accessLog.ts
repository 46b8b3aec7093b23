import type { Context } from "hono";
import { redact } from "../../lib/log.ts";
import type { AppEnv } from "../process/context.ts";

/** Enough of a path to find the route and the id in it; a longer one is cut. */
const LOGGED_PATH_CHARACTERS = 512;

/**
 * The path as logged: redacted whole, then cut, so a token or signature straddling the cut is
 * replaced entirely instead of leaving a fragment too short to look like one. A path longer than the
 * limit ends in "…" even when redaction alone made it short.
 */
export function loggedPath(path: string): string {
  const redacted = redact(path) as string;
  const long = path.length > LOGGED_PATH_CHARACTERS || redacted.length > LOGGED_PATH_CHARACTERS;
  return long ? `${redacted.slice(0, LOGGED_PATH_CHARACTERS)}…` : redacted;
}

/**
 * The access line of a request answered: never headers, query values or bodies, which can carry
 * secrets.
 */
export function logAccess(c: Context<AppEnv>, started: number): void {
  c.get("deps").log.info("request", {
    request_id: c.get("requestId"),
    method: c.req.method,
    path: loggedPath(c.req.path),
    status: c.res.status,
    duration_ms: Math.round(performance.now() - started),
    auth: c.get("identity")?.method,
  });
}
