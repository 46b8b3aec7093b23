import { Gauge, register } from "prom-client";

/**
 * A gauge read at each scrape by `read`. A failed read leaves its last value: `/metrics` still
 * answers when a dependency does not. Declared again (a process composing a second API), it replaces
 * the first. An API cluster's processes all read the same rows: their aggregate is the largest.
 */
export function collectedGauge(name: string, help: string, read: () => Promise<number>): void {
  register.removeSingleMetric(name);
  new Gauge({
    name,
    help,
    aggregator: "max",
    async collect() {
      const value = await read().catch(() => undefined);
      if (value !== undefined) this.set(value);
    },
  });
}
