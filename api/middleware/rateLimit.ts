import { sql } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { rateLimitWindows } from "../../lib/db/appSchema.ts";
import type { AppEnv } from "../context.ts";
import { ApiError } from "../errors.ts";

const WINDOW_SECONDS = 60;

/**
 * Fixed one-minute windows counted in Postgres, so every API process shares them: per API key, per
 * wallet for JWTs, per address for unauthenticated callers. Headers go on every response.
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const { db, settings, now } = c.get("deps");
  const nowSeconds = Math.floor(now() / 1000);
  const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
  const limit = settings.rateLimitPerMinute;

  const [row] = await db
    .insert(rateLimitWindows)
    .values({ subject: subjectOf(c), windowStart, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimitWindows.subject, rateLimitWindows.windowStart],
      set: { count: sql`${rateLimitWindows.count} + 1` },
    })
    .returning({ count: rateLimitWindows.count });
  const count = row?.count ?? limit + 1;
  const reset = windowStart + WINDOW_SECONDS;
  c.header("X-RateLimit-Limit", String(limit));
  c.header("X-RateLimit-Remaining", String(Math.max(0, limit - count)));
  c.header("X-RateLimit-Reset", String(reset));

  if (count > limit) {
    c.header("Retry-After", String(Math.max(1, reset - nowSeconds)));
    throw new ApiError(
      "rate_limit_exceeded",
      `More than ${limit} requests in a minute; retry later`,
    );
  }
  if (Math.random() < 0.01) await forgetOldWindows(c, windowStart);
  await next();
});

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
