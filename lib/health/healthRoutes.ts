import { Hono } from "hono";
import type { Readiness } from "./readiness.ts";

/**
 * `GET /healthz`: the process is up and answers. `GET /readyz`: 200 when every readiness check
 * passed, 503 naming each that failed. Neither needs a credential nor spends a budget: mounted
 * before the API's middleware, they answer without it.
 */
export function healthRoutes(readiness: Readiness) {
  return new Hono()
    .get("/healthz", (c) => c.json({ status: "ok" }))
    .get("/readyz", async (c) => {
      const report = await readiness.report();
      c.header("Cache-Control", "no-store");
      return c.json(report, report.status === "ready" ? 200 : 503);
    });
}
