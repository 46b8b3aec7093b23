import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { collectDefaultMetrics, register } from "prom-client";
import type { Logger } from "../log.ts";
import { countMetrics } from "./metricsOn.ts";

/** What `/metrics` answers: this process's registry, or an API cluster's aggregated. */
export type MetricsSource = { metrics: () => Promise<string>; contentType: string };

/**
 * Prometheus text on `/metrics`, on a port of its own (`METRICS_PORT`): the API's port carries no
 * operator endpoint beyond the probes, and a scraper needs no credential. The process's default
 * metrics (CPU, memory, event loop lag, handles) are collected, and the marketplace's counted, from
 * the first call on: without it a process counts nothing.
 */
export async function serveMetrics(
  { host, port }: { host: string; port: number },
  log: Logger,
  source: MetricsSource = register,
): Promise<{ close: () => Promise<void> }> {
  countMetrics();
  if (source === register) collectDefaultMetrics();
  const app = new Hono().get("/metrics", async (c) => {
    c.header("Content-Type", source.contentType);
    c.header("Cache-Control", "no-store");
    return c.body(await source.metrics());
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const listening = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(listening));
    listening.once("error", reject);
  });
  log.info("metrics listening", { url: `http://${host}:${port}/metrics` });
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}
