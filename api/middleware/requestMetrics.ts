import type { Context } from "hono";
import { routePath } from "hono/route";
import { httpRequestDuration, rateLimitRefusals } from "../../lib/metrics/metrics.ts";
import type { AppEnv } from "../process/context.ts";

/**
 * Counts an answered request under its route template (the last route it matched, `/v1/runs/:id`,
 * never the path it asked for): a path is the caller's to choose, a template is one of a few.
 */
export function observeRequest(c: Context<AppEnv>, started: number): void {
  const route = routePath(c, -1);
  const status = c.res.status;
  httpRequestDuration.observe(
    { method: c.req.method, route, status: String(status) },
    (performance.now() - started) / 1000,
  );
  if (status === 429) rateLimitRefusals.inc({ route });
}
