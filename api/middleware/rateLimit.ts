import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { TrustProxy } from "../../lib/net/trustProxy.ts";
import { clientAddressResolver } from "../http/clientAddress.ts";
import { ApiError } from "../http/errors.ts";
import { requesterOf } from "../http/requester.ts";
import { setResponseHeaders } from "../http/responseHeader.ts";
import type { AppEnv } from "../process/context.ts";
import { createOverlappingRequests } from "../rateLimit/overlappingRequests.ts";

const WINDOW_SECONDS = 60;

/** Where a subject's budget stands in the current window: what the X-RateLimit-* headers say. */
export type RateLimitBudget = {
  limit: number;
  /** Requests counted in this window, this one included; above `limit`, it is refused. */
  count: number;
  /** When the window ends, in Unix seconds. */
  reset: number;
};

/** The window holding `nowMs`: its start and its end (`reset`), in Unix seconds. */
export function rateLimitWindow(nowMs: number) {
  const nowSeconds = Math.floor(nowMs / 1000);
  const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
  return { nowSeconds, windowStart, reset: windowStart + WINDOW_SECONDS };
}

/** Describes `budget` in the response's headers; over its limit, with `Retry-After` too. */
export function setRateLimitHeaders(c: Context, budget: RateLimitBudget, nowSeconds: number) {
  const headers: [string, string][] = [
    ["X-RateLimit-Limit", String(budget.limit)],
    ["X-RateLimit-Remaining", String(Math.max(0, budget.limit - budget.count))],
    ["X-RateLimit-Reset", String(budget.reset)],
  ];
  if (budget.count > budget.limit) {
    headers.push(["Retry-After", String(Math.max(1, budget.reset - nowSeconds))]);
  }
  setResponseHeaders(c, headers);
}

/**
 * Fixed one-minute windows shared by every API process (leased from Postgres, `LeasedBudgets`): per
 * wallet for authenticated callers (all its API keys and tokens together), per requester (the
 * client address, an IPv6 one's /64) for unauthenticated ones, and signing in (everything under
 * `signInPath`) per requester in a budget of its own, so that no other traffic can use it up. The
 * requester goes into the context for the routes. Headers go on every response. A subject over its
 * limit is refused for the rest of the window without another database write.
 */
export function rateLimit({
  signInPath,
  trustProxy,
}: {
  signInPath: string;
  trustProxy: TrustProxy | undefined;
}) {
  const clientAddress = clientAddressResolver(trustProxy);
  const underSignIn = `${signInPath}/`;
  const overlapping = createOverlappingRequests();

  /** Whose budget a request spends, and how large it is. */
  function budgetOf(c: Context<AppEnv>, requester: string): { subject: string; limit: number } {
    const { settings } = c.get("deps");
    if (c.req.path === signInPath || c.req.path.startsWith(underSignIn)) {
      return { subject: `sign-in:${requester}`, limit: settings.authRateLimitPerMinute };
    }
    const identity = c.get("identity");
    const limit = settings.rateLimitPerMinute;
    if (identity) return { subject: `wallet:${identity.wallet.toLowerCase()}`, limit };
    return { subject: `address:${requester}`, limit };
  }

  return createMiddleware<AppEnv>(async (c, next) => {
    const { budgets, now } = c.get("deps");
    const { nowSeconds, windowStart, reset } = rateLimitWindow(now());
    const requester = requesterOf(clientAddress(peerAddress(c), c.req.header("x-forwarded-for")));
    c.set("requester", requester);
    const { subject, limit } = budgetOf(c, requester);

    const { busy, end } = overlapping.start(subject);
    try {
      const spending = budgets.spend(subject, limit, windowStart, { busy });
      const { count } = spending instanceof Promise ? await spending : spending;
      const budget = { limit, count, reset };
      setRateLimitHeaders(c, budget, nowSeconds);
      c.set("rateLimit", budget);

      if (count > limit) {
        throw new ApiError(
          "rate_limit_exceeded",
          `More than ${limit} requests in a minute; retry later`,
        );
      }
      await next();
    } finally {
      end();
    }
  });
}

function peerAddress(c: Context<AppEnv>): string | undefined {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress;
}
