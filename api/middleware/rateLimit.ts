import { sql } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { rateLimitWindows } from "../../lib/db/appSchema.ts";
import type { AppEnv } from "../context.ts";
import { ApiError } from "../errors.ts";

const WINDOW_SECONDS = 60;
/** Subjects remembered as over their limit; past this many, the memory starts afresh. */
const MAX_REMEMBERED = 10_000;

/**
 * Fixed one-minute windows counted in Postgres, so every API process shares them: per API key, per
 * wallet for JWTs, per address for unauthenticated callers. Headers go on every response. A subject
 * this process saw go over its limit is refused for the rest of the window without counting again,
 * so a flood costs no database write per request.
 */
export function rateLimit() {
  /** Subject → the end of the window it exhausted, in Unix seconds. */
  const exhausted = new Map<string, number>();

  return createMiddleware<AppEnv>(async (c, next) => {
    const { settings, now } = c.get("deps");
    const nowSeconds = Math.floor(now() / 1000);
    const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
    const reset = windowStart + WINDOW_SECONDS;
    const limit = settings.rateLimitPerMinute;
    const subject = subjectOf(c);

    const count =
      exhausted.get(subject) === reset ? limit + 1 : await countRequest(c, subject, windowStart);
    c.header("X-RateLimit-Limit", String(limit));
    c.header("X-RateLimit-Remaining", String(Math.max(0, limit - count)));
    c.header("X-RateLimit-Reset", String(reset));

    if (count > limit) {
      remember(exhausted, subject, reset, nowSeconds);
      c.header("Retry-After", String(Math.max(1, reset - nowSeconds)));
      throw new ApiError(
        "rate_limit_exceeded",
        `More than ${limit} requests in a minute; retry later`,
      );
    }
    if (Math.random() < 0.01) await forgetOldWindows(c, windowStart);
    await next();
  });
}

async function countRequest(c: Context<AppEnv>, subject: string, windowStart: number) {
  const [row] = await c
    .get("deps")
    .db.insert(rateLimitWindows)
    .values({ subject, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimitWindows.subject, rateLimitWindows.windowStart],
      set: { count: sql`${rateLimitWindows.count} + 1` },
    })
    .returning({ count: rateLimitWindows.count });
  if (!row) throw new Error("the rate-limit count was not returned");
  return row.count;
}

function remember(exhausted: Map<string, number>, subject: string, reset: number, now: number) {
  if (exhausted.size >= MAX_REMEMBERED) {
    for (const [known, end] of exhausted) if (end <= now) exhausted.delete(known);
    if (exhausted.size >= MAX_REMEMBERED) exhausted.clear();
  }
  exhausted.set(subject, reset);
}

function subjectOf(c: Context<AppEnv>): string {
  const identity = c.get("identity");
  if (identity?.method === "api_key") return `key:${identity.keyId}`;
  if (identity) return `wallet:${identity.wallet}`;
  return `address:${clientAddress(c)}`;
}

function clientAddress(c: Context<AppEnv>): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}

async function forgetOldWindows(c: Context<AppEnv>, currentWindow: number) {
  await c
    .get("deps")
    .db.delete(rateLimitWindows)
    .where(sql`${rateLimitWindows.windowStart} < ${currentWindow - WINDOW_SECONDS}`);
}
