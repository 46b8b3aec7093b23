import { serve } from "@hono/node-server";
import type { Logger } from "../log.ts";
import { healthRoutes } from "./healthRoutes.ts";
import type { Readiness } from "./readiness.ts";

/** `/healthz` and `/readyz` on a port of their own, for a process that serves no other HTTP. */
export async function serveHealth(
  { host, port }: { host: string; port: number },
  readiness: Readiness,
  log: Logger,
): Promise<{ close: () => Promise<void> }> {
  const app = healthRoutes(readiness);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const listening = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(listening));
    listening.once("error", reject);
  });
  log.info("health listening", { url: `http://${host}:${port}/readyz` });
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}
