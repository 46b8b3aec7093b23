// The metrics tests' parser reads what prom-client writes, and refuses what is not the format.
import { Counter, Histogram, Registry } from "prom-client";
import { expect, it } from "vitest";
import { metricValue, parsePrometheusText, samplesOf } from "./prometheusText.ts";

it("reads counters, histograms and escaped label values as prom-client writes them", async () => {
  const registry = new Registry();
  const counter = new Counter({
    name: "things_total",
    help: "Things, with a \\ and\na newline",
    labelNames: ["kind"],
    registers: [registry],
  });
  counter.inc({ kind: 'a "quoted"\\ne\nline' }, 2);
  const histogram = new Histogram({
    name: "waits_seconds",
    help: "Waits",
    buckets: [0.1, 1],
    registers: [registry],
  });
  histogram.observe(0.5);

  const families = parsePrometheusText(await registry.metrics());
  expect(families.get("things_total")?.type).toBe("counter");
  expect(samplesOf(families, "things_total")).toEqual([
    { name: "things_total", labels: { kind: 'a "quoted"\\ne\nline' }, value: 2 },
  ]);
  expect(metricValue(families, "waits_seconds_bucket", { le: "0.1" })).toBe(0);
  expect(metricValue(families, "waits_seconds_bucket", { le: "+Inf" })).toBe(1);
  expect(metricValue(families, "waits_seconds_count")).toBe(1);
  expect(metricValue(families, "waits_seconds_sum")).toBe(0.5);
});

it("refuses what is not the text format", () => {
  const typed = "# TYPE up gauge\n";
  for (const text of [
    "up 1\n",
    `${typed}up{job="a} 1\n`,
    `${typed}up{job="a",job="b"} 1\n`,
    `${typed}up{job="a\\x"} 1\n`,
    `${typed}up one\n`,
    `${typed}up 1 2 3\n`,
    `${typed}up{job="a" instance="b"} 1\n`,
    "# TYPE up gauges\n",
    `${typed}down 1\n`,
  ]) {
    expect(() => parsePrometheusText(text), text).toThrow(/^line \d+/);
  }
  expect(metricValue(parsePrometheusText(`${typed}up{job="a"} 1 1700000000000\n`), "up")).toBe(1);
});
