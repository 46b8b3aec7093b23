import { Gauge, register } from "prom-client";

/**
 * A gauge read at each scrape by `read`. A failed read leaves its last value: `/metrics` still
 * answers when a dependency does not. Declared again (a process composing a second API), it replaces
 * the first. An API cluster's processes all read the same rows: by default their aggregate is the
 * largest; what each process holds of its own (`"sum"`) adds up.
 */
export function collectedGauge(
  name: string,
  help: string,
  read: () => Promise<number>,
  aggregator: "max" | "sum" = "max",
): void {
  register.removeSingleMetric(name);
  new Gauge({
    name,
    help,
    aggregator,
    async collect() {
      const value = await read().catch(() => undefined);
      if (value !== undefined) this.set(value);
    },
  });
}
