// What metrics and tracing cost: POST /v1/execute throughput on the echo agent (a connected agent
// answering at once), on a one-time credential, from two embedded API processes of one stack, one
// with metrics and tracing both off, one with both on (METRICS_PORT, and OTEL_EXPORTER_OTLP_ENDPOINT
// at an OTLP sink in this process that reads and drops what it gets). Closed-loop load from wrk, the
// two alternated round by round (off first in odd rounds, on first in even ones) so that the
// machine's drift weighs on both; the medians compared, of the throughput and of the serving
// process's CPU time per run (which other work on the machine disturbs less). Each process runs its
// own in-process workers: a run is executed by the process that admitted it; a third, started first,
// leads the settlement, so that neither measured process logs runs on chain. One-time, not per task:
// a per-task answer waits for its run's debit to be mined, and the throughput would be the
// settlement's pace, not the request path's.
// Run: npm run bench:observability
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { ensureDevCertificates } from "../devStack/devCertificates.ts";
import { findFreePort } from "../devStack/findFreePort.ts";
import { toApiListingId } from "../lib/ids/listingId.ts";
import { startBenchStack, UNLIMITED_RATE } from "./benchStack.ts";
import { setUpExecution } from "./executionFixture.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { processCpuSeconds } from "./processCpu.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { startEchoAgent } from "./startEchoAgent.ts";
import { median } from "./statistics.ts";

/** Even: as many rounds measure off first as on first, so that the order weighs on neither. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const RENTERS = 10;
/** The goal: both on cost at most this share of the throughput with both off. */
const GOAL = 0.05;

type Side = "off" | "on";
type Throughput = {
  requestsPerSecond: number;
  requests: number;
  failed: number;
  /** CPU milliseconds (user + system) the serving process spent per run answered 200. */
  cpuMsPerRun: number;
};

const run = promisify(execFile);

/** The wrk script: each request a POST /v1/execute under the next renter's key. */
function wrkScript(dir: string, agentId: string, keys: string[]): string {
  const file = join(dir, "execute.lua");
  writeFileSync(
    file,
    `local keys = {${keys.map((key) => `"${key}"`).join(", ")}}
local n = 0
request = function()
  n = n + 1
  local body = '{"agent_id":"${agentId}","task":"task ' .. n .. '","input":{"text":"hello"}}'
  return wrk.format("POST", "/v1/execute", {
    ["Authorization"] = "Bearer " .. keys[(n % #keys) + 1],
    ["Content-Type"] = "application/json",
  }, body)
end
`,
  );
  return file;
}

/**
 * wrk's closed loop on the API at `url` (process `pid`) for `seconds`: requests answered 2xx per
 * second, the rest, and the process's CPU time per run answered.
 */
async function load(
  { url, pid }: { url: string; pid: number },
  script: string,
  seconds: number,
): Promise<Throughput> {
  const cpuBefore = processCpuSeconds(pid);
  const { stdout } = await run("wrk", [
    "-t2",
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    url,
  ]);
  const number = (pattern: RegExp) => Number(stdout.match(pattern)?.[1] ?? 0);
  const requests = number(/(\d+) requests in/);
  const failed =
    number(/Non-2xx or 3xx responses: (\d+)/) +
    [...stdout.matchAll(/(?:connect|read|write|timeout) (\d+)/g)].reduce(
      (sum, [, count]) => sum + Number(count),
      0,
    );
  const elapsed = number(/requests in ([\d.]+)s/) || seconds;
  const cpuMs = (processCpuSeconds(pid) - cpuBefore) * 1000;
  return {
    requestsPerSecond: (requests - failed) / elapsed,
    requests,
    failed,
    cpuMsPerRun: cpuMs / Math.max(1, requests - failed),
  };
}

/** An OTLP/HTTP endpoint that reads each export whole and drops it, counting the exports. */
async function startOtlpSink() {
  let exports = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      exports++;
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

await runBenchmark(async (cleanup) => {
  const loadBefore = loadavg();
  const stack = await startBenchStack(cleanup, {
    // Without NATS, each API process runs its own workers on an in-process bus.
    api: 0,
    ponder: true,
    rateLimitPerMinute: UNLIMITED_RATE,
    env: { EXECUTION_RATE_LIMIT_PER_MINUTE: String(UNLIMITED_RATE) },
  });
  // The workers trust the dev CA of the stack's DATA_DIR on the local chain: made before they start.
  const echo = await startEchoAgent(await ensureDevCertificates(stack.dir));
  cleanup.add("echo agent", echo.stop);
  const sink = await startOtlpSink();
  cleanup.add("OTLP sink", sink.close);
  // Started first, it takes the settlement's lead and keeps it: neither measured process settles.
  await stack.addApi();
  const metricsPort = await findFreePort();
  const apis = {
    off: await stack.addApi(),
    on: await stack.addApi({
      METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
    }),
  };
  const fixture = await setUpExecution(stack, echo, RENTERS);
  const script = wrkScript(stack.dir, toApiListingId(fixture.listings["one-time"]), fixture.keys);

  // The settlement leader logs every finished run on chain after it ends: each measure starts once
  // the last one's runs are logged, so that its work weighs on no other measure.
  const sql = postgres(stack.postgres.databaseUrl, { max: 1, onnotice: () => {} });
  cleanup.add("Postgres client", () => sql.end());
  const untilRunsLogged = async () => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const [row] = await sql<{ count: number }[]>`
        select count(*)::int as count from app.runs
        where not logged and status in ('completed', 'failed')`;
      if (row?.count === 0) return;
      if (Date.now() > deadline) throw new Error(`${row?.count} runs still unlogged after 2 min`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  const measured: Record<Side, Throughput[]> = { off: [], on: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const order: Side[] = round % 2 === 1 ? ["off", "on"] : ["on", "off"];
    for (const side of order) {
      await untilRunsLogged();
      await load(apis[side], script, WARM_UP_SECONDS);
      await untilRunsLogged();
      const result = await load(apis[side], script, SECONDS);
      measured[side].push(result);
      console.error(
        `round ${round} ${side}: ${fixed(result.requestsPerSecond)} runs/s, ${fixed(result.cpuMsPerRun)} CPU ms/run (${result.failed} failed)`,
      );
    }
  }
  const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((answer) =>
    answer.text(),
  );
  if (!metrics.includes('route="/v1/execute"')) throw new Error("the on side counted no request");
  if (sink.exports() === 0) throw new Error("the on side exported no span");

  const medianOf = (side: Side, of: (result: Throughput) => number) =>
    median(measured[side].map(of));
  const throughput = (result: Throughput) => result.requestsPerSecond;
  const cpu = (result: Throughput) => result.cpuMsPerRun;
  const ratio = medianOf("on", throughput) / medianOf("off", throughput);
  // Throughput a saturated process would keep, on against off: the inverse of their CPU per run.
  const cpuRatio = medianOf("off", cpu) / medianOf("on", cpu);
  const rows = Array.from({ length: ROUNDS }, (_, index) => {
    const off = measured.off[index] as Throughput;
    const on = measured.on[index] as Throughput;
    return [
      `round ${index + 1}${index % 2 === 0 ? " (off first)" : " (on first)"}`,
      fixed(off.requestsPerSecond),
      fixed(on.requestsPerSecond),
      fixed(on.requestsPerSecond / off.requestsPerSecond, 3),
      fixed(off.cpuMsPerRun),
      fixed(on.cpuMsPerRun),
      fixed(off.cpuMsPerRun / on.cpuMsPerRun, 3),
    ];
  });
  rows.push([
    "median",
    fixed(medianOf("off", throughput)),
    fixed(medianOf("on", throughput)),
    fixed(ratio, 3),
    fixed(medianOf("off", cpu)),
    fixed(medianOf("on", cpu)),
    fixed(cpuRatio, 3),
  ]);
  const failed = [...measured.off, ...measured.on].reduce((sum, { failed }) => sum + failed, 0);
  console.log(
    [
      `POST /v1/execute, one-time credential, echo agent: runs answered 200 per second, ${CONNECTIONS} connections, ${SECONDS} s per measure after ${WARM_UP_SECONDS} s of warm-up, ${ROUNDS} rounds.`,
      "",
      table(
        [
          "",
          "off: runs/s",
          "on: runs/s",
          "on / off",
          "off: CPU ms/run",
          "on: CPU ms/run",
          "off / on (CPU)",
        ],
        rows,
      ),
      "",
      `Both on cost ${fixed((1 - ratio) * 100)}% of the throughput with both off by the medians, and ${fixed((1 - cpuRatio) * 100)}% by the serving process's CPU per run (goal: at most ${fixed(GOAL * 100, 0)}%); ${failed} requests failed; ${sink.exports()} OTLP exports received.`,
      loadAverageLine(loadBefore, loadavg()),
      reproduce("bench:observability", [
        "BENCH_ROUNDS",
        "BENCH_SECONDS",
        "BENCH_WARMUP_SECONDS",
        "BENCH_CONNECTIONS",
      ]),
    ].join("\n"),
  );
});
