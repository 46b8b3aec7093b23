// `/metrics` of the embedded composition (the API and the workers in one process) on its own
// METRICS_PORT, read with a strict parser of the text format: a run, a settlement and a rate-limit
// refusal each move their metrics (a run its start latency and the run queue too), the chain's and
// the indexer's lag and the process's own metrics are there, and no label carries a path, an id or an
// address the requests named.
import { parseEther } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { findFreePort } from "../../devStack/findFreePort.ts";
import { type BehavingAgent, behaving, startBehavingAgent } from "../support/behavingAgent.ts";
import {
  listPerTaskAgent,
  type PerTaskListing,
  perTaskRenter,
  type Renter,
} from "../support/connectedListing.ts";
import { type Family, metricValue, parsePrometheusText } from "../support/prometheusText.ts";
import { until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const PRICE = parseEther("0.001");
/** Few enough that a burst of reads goes over it quickly. */
const RATE_LIMIT_PER_MINUTE = 40;

const stack = useStack({ api: 0, ponder: true, rateLimitPerMinute: RATE_LIMIT_PER_MINUTE });
let metricsUrl: string;
let agent: BehavingAgent;
let listing: PerTaskListing;
let renter: Renter;

beforeAll(async () => {
  agent = await startBehavingAgent(await ensureDevCertificates(stack().dir));
  const port = await findFreePort();
  await stack().addApi({ METRICS_PORT: String(port) });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  listing = await listPerTaskAgent(stack(), agent, { name: "metered-agent", price: PRICE });
  renter = await perTaskRenter(stack(), listing, 10n * PRICE);
}, 240_000);
afterAll(async () => {
  await agent?.close();
});

async function scrape(): Promise<Map<string, Family>> {
  const answer = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await answer.text());
}

/** A scrape at most every 250 ms until `holds` says it shows what is awaited. */
function scrapeUntil(what: string, holds: (families: Map<string, Family>) => boolean) {
  return until(what, async () => {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const families = await scrape();
    return holds(families) && families;
  });
}

const RUNS = "marketplace_runs_ended_total";
const EXECUTE = { method: "POST", route: "/v1/execute", status: "200" };
const DURATION = "marketplace_http_request_duration_seconds";
const BATCHES = "marketplace_settlement_batches_total";
const GAS = "marketplace_settlement_gas_used_total";
const REFUSALS = "marketplace_rate_limit_refusals_total";

it("counts a run, its settlement and rate-limit refusals, with bounded labels only", async () => {
  const before = await scrape();
  for (const name of [
    "process_cpu_user_seconds_total",
    "process_resident_memory_bytes",
    "nodejs_eventloop_lag_seconds",
    "marketplace_settlement_debits_pending",
    "marketplace_settlement_oldest_pending_seconds",
    "marketplace_indexer_behind_seconds",
    "marketplace_indexer_behind_blocks",
    "marketplace_indexer_checked_age_seconds",
    "marketplace_runs_waiting",
    "marketplace_run_slots_in_use",
    "marketplace_chain_head_age_seconds",
    "marketplace_input_checks_waiting",
  ]) {
    expect(before.get(name)?.samples.length, name).toBe(1);
  }
  // The supervisor records the indexer's progress twice a second; the indexer has caught up.
  expect(metricValue(before, "marketplace_indexer_checked_age_seconds")).toBeGreaterThanOrEqual(0);
  expect(metricValue(before, "marketplace_indexer_checked_age_seconds")).toBeLessThan(10);
  expect(metricValue(before, "marketplace_indexer_behind_seconds")).toBeGreaterThanOrEqual(0);
  expect(metricValue(before, "marketplace_chain_head_age_seconds")).toBeGreaterThanOrEqual(0);
  expect(metricValue(before, "marketplace_input_checks_waiting")).toBe(0);

  const run = await renter.api.post("/v1/execute", {
    agent_id: listing.agentId,
    task: behaving({ output: { summary: "measured" } }),
  });
  expect(run.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });

  const settled = await scrapeUntil(
    "the run's debit settled",
    (now) =>
      metricValue(now, BATCHES, { outcome: "mined" }) >
        metricValue(before, BATCHES, { outcome: "mined" }) &&
      metricValue(now, "marketplace_settlement_debits_pending") === 0,
  );
  const ended = { status: "completed", charge: "debit_pending" };
  expect(metricValue(settled, RUNS, ended) - metricValue(before, RUNS, ended)).toBe(1);
  expect(
    metricValue(settled, `${DURATION}_count`, EXECUTE) -
      metricValue(before, `${DURATION}_count`, EXECUTE),
  ).toBe(1);
  expect(metricValue(settled, GAS)).toBeGreaterThan(metricValue(before, GAS));
  expect(metricValue(settled, "marketplace_settlement_batch_runs_sum")).toBeGreaterThan(
    metricValue(before, "marketplace_settlement_batch_runs_sum"),
  );
  expect(metricValue(settled, "marketplace_settlement_oldest_pending_seconds")).toBe(0);
  // The run waited for its worker, then gave its slot back.
  expect(
    metricValue(settled, "marketplace_run_start_latency_seconds_count") -
      metricValue(before, "marketplace_run_start_latency_seconds_count"),
  ).toBe(1);
  expect(metricValue(settled, "marketplace_runs_waiting")).toBe(0);
  expect(metricValue(settled, "marketplace_run_slots_in_use")).toBe(0);

  // Reads of the run until the renter's budget for the minute is spent, and then some.
  const statuses: number[] = [];
  while (statuses.filter((status) => status === 429).length < 3) {
    statuses.push((await renter.api.get(`/v1/runs/${run.body.run_id}`)).status);
    expect(statuses.length).toBeLessThan(3 * RATE_LIMIT_PER_MINUTE);
  }
  const refused = statuses.filter((status) => status === 429).length;
  const runRoute = { route: "/v1/runs/:run_id" };
  const after = await scrapeUntil("the refusals counted", (now) => metricValue(now, REFUSALS) > 0);
  expect(metricValue(after, REFUSALS, runRoute) - metricValue(before, REFUSALS, runRoute)).toBe(
    refused,
  );
  expect(
    metricValue(after, `${DURATION}_count`, { ...runRoute, status: "429" }) -
      metricValue(before, `${DURATION}_count`, { ...runRoute, status: "429" }),
  ).toBe(refused);

  // Route templates only: nothing a request named reaches a label.
  const named = [run.body.run_id, listing.agentId, renter.account.address.toLowerCase()];
  for (const family of after.values()) {
    for (const { labels } of family.samples) {
      for (const value of Object.values(labels)) {
        expect(
          named.some((id) => value.toLowerCase().includes(id.toLowerCase())),
          value,
        ).toBe(false);
      }
    }
  }
});
