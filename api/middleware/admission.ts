import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { TrustProxy } from "../../lib/net/trustProxy.ts";
import type { AppEnv } from "../process/context.ts";
import { identify } from "./identify.ts";
import { rateLimit } from "./rateLimit.ts";

/**
 * Whether a request goes on to its route, in one step: the dashboard's files are answered first
 * (public, they need neither identity nor budget); then who is calling, and the rate limit of that
 * caller. With a cached API key and units leased ahead, nothing here waits on a promise.
 */
export function admission({
  dashboardFile,
  signInPath,
  trustProxy,
}: {
  dashboardFile?: (c: Context<AppEnv>) => Response | undefined;
  signInPath: string;
  trustProxy: TrustProxy | undefined;
}) {
  const spendBudget = rateLimit({ signInPath, trustProxy });
  return createMiddleware<AppEnv>(async (c, next) => {
    const file = dashboardFile?.(c);
    if (file) return file;
    const identifying = identify(c.req.header("authorization"), c.get("deps"));
    const identified = identifying instanceof Promise ? await identifying : identifying;
    if ("identity" in identified) c.set("identity", identified.identity);
    else c.set("authError", identified.authError);
    return spendBudget(c, next);
  });
}
