import type { Context } from "hono";
import type { Address, Hex } from "viem";
import { ApiError } from "../http/errors.ts";
import {
  type RateLimitBudget,
  rateLimitWindow,
  setRateLimitHeaders,
} from "../middleware/rateLimit.ts";
import type { ApiDeps, AppEnv } from "../process/context.ts";

/**
 * Counts an execution against its credential's budget (wallet and listing, per minute), in the
 * windows the general limit counts in. The X-RateLimit-* headers of `answer`, when there is one,
 * then describe whichever budget is tighter; over the execution limit, 429 with `Retry-After`.
 */
export async function countExecution(
  { budgets, now, settings }: ApiDeps,
  {
    wallet,
    onChainListingId,
    limitPerMinute,
  }: { wallet: Address; onChainListingId: Hex; limitPerMinute: number | undefined },
  answer?: Context<AppEnv>,
) {
  const { nowSeconds, windowStart, reset } = rateLimitWindow(now());
  const subject = `execution:${wallet.toLowerCase()}:${onChainListingId}`;
  // The listing's own limit, read with the listing, or the default.
  const limit = limitPerMinute ?? settings.executionRateLimitPerMinute;
  const { count } = await budgets.spend(subject, limit, windowStart);
  const execution: RateLimitBudget = { limit, count, reset };
  if (answer) {
    const general = answer.get("rateLimit");
    setRateLimitHeaders(answer, general ? tighter(general, execution) : execution, nowSeconds);
  }
  if (execution.count > limit) {
    throw new ApiError(
      "rate_limit_exceeded",
      `More than ${limit} executions of this listing in a minute; retry later`,
    );
  }
}

/** The budget with fewer requests left; on a tie, the smaller one. */
function tighter(a: RateLimitBudget, b: RateLimitBudget): RateLimitBudget {
  const left = (budget: RateLimitBudget) => budget.limit - budget.count;
  if (left(a) !== left(b)) return left(a) < left(b) ? a : b;
  return a.limit <= b.limit ? a : b;
}
