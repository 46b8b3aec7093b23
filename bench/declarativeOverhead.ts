// What a declarative agent adds to the start of a run: POST /v1/execute (one-time) → the run's
// request received at the agent's endpoint, for the connected echo agent (its webhook) and for
// declarative agents on the vendor emulator, which answers at once (the model vendor's first byte).
// The paths' requests are interleaved in one series: open loop at each rate, then one at a time;
// then the worker's part of it measured alone, piece by piece. Run: npm run bench:declarative
import { loadavg } from "node:os";
import postgres from "postgres";
import type { Hex } from "viem";
import { ensureDevCertificates } from "../devStack/devCertificates.ts";
import { type ModelServers, startModelServers } from "../devStack/startModelServers.ts";
import { SEALING_KEY } from "../devStack/startStack.ts";
import { parseSecretKey } from "../lib/crypto/secretBox.ts";
import { toApiListingId } from "../lib/ids/listingId.ts";
import { createLogger } from "../lib/log.ts";
import type { ModelProvider } from "../lib/manifest/manifestShape.ts";
import { loadOutboundPolicy } from "../workers/execution/outbound/outboundPolicy.ts";
import { startBenchStack, UNLIMITED_RATE } from "./benchStack.ts";
import { type DeclarativeBenchAgent, listDeclarativeAgents } from "./declarativeFixture.ts";
import { setUpExecution } from "./executionFixture.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { type OpenLoadOptions, type OpenLoadSample, runOpenLoad } from "./openLoad.ts";
import { classifyService, cpuSpent, readCpu } from "./processCpu.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { type EchoAgent, startEchoAgent } from "./startEchoAgent.ts";
import { percentile, tail } from "./statistics.ts";
import { measureWorkerParts, type WorkerParts } from "./workerParts.ts";

const list = (name: string, fallback: string) =>
  (process.env[name] ?? fallback).split(",").filter(Boolean);
/** Requests per second, all paths together. */
const RATES = list("BENCH_RATES", "10,20").map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
/** Runs per path one at a time, in blocks of a quarter, the paths taking turns. */
const SERIAL_RUNS = Number(process.env.BENCH_SERIAL_RUNS ?? 100);
const SERIAL_BLOCKS = 4;
const PROVIDERS = list("BENCH_PROVIDERS", "openai,anthropic,self_hosted") as ModelProvider[];
const RENTERS = 10;
/** Per path, in rounds that take the paths in turn. */
const PART_SAMPLES = 200;
const PART_ROUNDS = 5;

type Path = { name: string; listing: Hex; agent?: DeclarativeBenchAgent };

/** One request's times, in ms from when it was due. */
type RunTimes = { admitted: number; taken: number; received: number };

type PathResult = {
  times: RunTimes[];
  failures: Map<string, number>;
  /** CPU ms per run by process group (serial series only: its blocks are one path's each). */
  cpuMsPerRun?: Map<string, number>;
};

type Series = {
  name: string;
  rate?: number;
  results: PathResult[];
  lagP99: number;
  /** The machine's 1-minute load average as the series ended. */
  loadAverage: number;
};

const taskOf = (index: number) => `Answer request ${index}.`;
const TASK_INDEX = /Answer request (\d+)\./;

await runBenchmark(async (cleanup) => {
  const startedAt = performance.now();
  const stack = await startBenchStack(cleanup, {
    nats: true,
    api: 1,
    rateLimitPerMinute: UNLIMITED_RATE,
    env: { EXECUTION_RATE_LIMIT_PER_MINUTE: String(UNLIMITED_RATE) },
  });
  // The worker trusts the dev CA of the stack's DATA_DIR on the local chain: made before it starts.
  const echo = await startEchoAgent(await ensureDevCertificates(stack.dir));
  cleanup.add("echo agent", echo.stop);
  const servers = await startModelServers(stack);
  cleanup.add("model servers", servers.stop);
  await stack.addWorker(servers.env);
  const fixture = await setUpExecution(stack, echo, RENTERS);
  const agents = await listDeclarativeAgents(stack, servers, PROVIDERS, fixture.renters);
  const paths: Path[] = [
    { name: "connected (echo agent)", listing: fixture.listings["one-time"] },
    ...agents.map((agent) => ({
      name: `declarative, ${agent.provider}`,
      listing: agent.listing,
      agent,
    })),
  ];
  console.log(
    `Stack ready after ${fixed((performance.now() - startedAt) / 1000)} s: anvil, Postgres, NATS, Ponder, API, worker, echo agent, vendor emulators; ${paths.length} one-time listings, ${RENTERS} renters.`,
  );

  const requestOf = (pathOf: (index: number) => number) => (index: number) => ({
    path: "/v1/execute",
    headers: {
      // Each path's requests go round all the renters.
      authorization: `Bearer ${fixture.keys[Math.floor(index / paths.length) % fixture.keys.length]}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({
      agent_id: toApiListingId((paths[pathOf(index)] as Path).listing),
      task: taskOf(index),
      input: { text: "hello" },
    }),
  });
  const sql = postgres(stack.postgres.databaseUrl, { max: 1, onnotice: () => {} });
  cleanup.add("benchmark's Postgres client", () => sql.end());
  const resultsOf = async (samples: OpenLoadSample[], pathOf: (index: number) => number) => {
    const arrivals = await takeArrivals(echo, servers, samples);
    return resultsByPath(sql, samples, arrivals, pathOf, paths.length);
  };

  const loadBefore = loadavg();
  const series: Series[] = [];
  const interleaved = (index: number) => index % paths.length;
  for (const rate of RATES) {
    const load = (seconds: number) =>
      runOpenLoad({
        origin: stack.api.url,
        rate,
        seconds,
        requestOf: requestOf(interleaved),
      });
    if (WARM_UP_SECONDS > 0) await resultsOf(await load(WARM_UP_SECONDS), interleaved);
    const samples = await load(SECONDS);
    const results = await resultsOf(samples, interleaved);
    series.push({
      name: "open loop",
      rate,
      results,
      lagP99: lagP99(samples),
      loadAverage: loadavg()[0] ?? 0,
    });
    logSeries(series.at(-1) as Series, paths);
  }

  const block = Math.max(1, Math.round(SERIAL_RUNS / SERIAL_BLOCKS));
  const inBlocks = (index: number) => Math.floor(index / block) % paths.length;
  const { samples, cpu } = await oneAtATime({
    origin: stack.api.url,
    requestOf: requestOf(inBlocks),
    block,
    count: block * SERIAL_BLOCKS * paths.length,
  });
  const serial = await resultsOf(samples, inBlocks);
  for (const [p, result] of serial.entries()) {
    const spent = cpu.filter((_, b) => b % paths.length === p);
    const runs = block * spent.length;
    result.cpuMsPerRun = new Map();
    for (const [group, seconds] of spent.flatMap((blockCpu) => [...blockCpu])) {
      result.cpuMsPerRun.set(group, (result.cpuMsPerRun.get(group) ?? 0) + (1000 * seconds) / runs);
    }
  }
  series.push({
    name: "one at a time",
    results: serial,
    lagP99: lagP99(samples),
    loadAverage: loadavg()[0] ?? 0,
  });
  logSeries(series.at(-1) as Series, paths);

  const deps = {
    db: stack.db,
    sealingKey: parseSecretKey(SEALING_KEY),
    policy: await loadOutboundPolicy({
      DATA_DIR: stack.dir,
      DEPLOYMENT_FILE: stack.deploymentFile,
    }),
    vendors: {
      openaiBaseUrl: servers.vendor.openaiBaseUrl,
      anthropicBaseUrl: servers.vendor.anthropicBaseUrl,
    },
    log: createLogger("bench", () => {}),
  };
  const parts: WorkerParts[] = paths.map(() => ({
    openSecret: [],
    openRuntime: [],
    buildClient: [],
    callToRequest: [],
  }));
  for (let round = 0; round < PART_ROUNDS; round++) {
    for (const [p, { agent, listing, name }] of paths.entries()) {
      const measured = await measureWorkerParts({
        deps,
        listing,
        model: agent && { provider: agent.provider, model: agent.model },
        arrivalOf: async (runId) => {
          if (!agent) return (await echo.takeArrivals()).arrivals.get(runId) as number;
          const request = agent.server.requests.splice(0).find((r) => r.model === agent.model);
          if (!request) throw new Error(`no request reached the model of ${name}`);
          return arrivalTime(request.receivedAt);
        },
        samples: PART_SAMPLES / PART_ROUNDS,
      });
      const into = parts[p] as WorkerParts;
      for (const part of Object.keys(into) as (keyof WorkerParts)[]) {
        into[part].push(...measured[part]);
      }
    }
  }
  report({ paths, series, parts, loadBefore, loadAfter: loadavg() });
});

/**
 * Requests sent one at a time, each once the last is answered (on a connection of its own), and the
 * CPU each process used over each block of `block` requests.
 */
async function oneAtATime(options: {
  origin: string;
  requestOf: OpenLoadOptions["requestOf"];
  block: number;
  count: number;
}): Promise<{ samples: OpenLoadSample[]; cpu: Map<string, number>[] }> {
  const samples: OpenLoadSample[] = [];
  const cpu: Map<string, number>[] = [];
  let before = readCpu(classifyService);
  for (let index = 0; index < options.count; index++) {
    // An open loop of exactly one request, which it sends at once.
    const [sample] = await runOpenLoad({
      origin: options.origin,
      rate: 1000,
      seconds: 0.001,
      requestOf: () => options.requestOf(index),
    });
    samples.push({ ...(sample as OpenLoadSample), index });
    if ((index + 1) % options.block === 0) {
      const after = readCpu(classifyService);
      cpu.push(cpuSpent(before, after));
      before = after;
    }
  }
  return { samples, cpu };
}

/** Date.now() counts whole milliseconds: the middle of the one the request came in. */
function arrivalTime(receivedAt: number): number {
  return receivedAt + 0.5;
}

/**
 * When each run's request reached its agent's endpoint (epoch ms), by run id, since the last take:
 * the echo agent's webhook calls carry the run id; a model's request, the task, which names its
 * request's index in `samples`.
 */
async function takeArrivals(
  echo: EchoAgent,
  servers: ModelServers,
  samples: OpenLoadSample[],
): Promise<Map<string, number>> {
  const { arrivals } = await echo.takeArrivals();
  for (const server of [servers.vendor, servers.selfHosted]) {
    for (const request of server.requests.splice(0)) {
      const index = TASK_INDEX.exec(JSON.stringify(request.body))?.[1];
      const sample = index === undefined ? undefined : samples[Number(index)];
      const runId = sample && runIdOf(sample);
      if (runId) arrivals.set(runId, arrivalTime(request.receivedAt));
    }
  }
  return arrivals;
}

function runIdOf(sample: OpenLoadSample): string | undefined {
  if (sample.status !== 200) return undefined;
  const body = JSON.parse(sample.body ?? "{}") as { run_id?: string; status?: string };
  return body.status === "completed" ? body.run_id : undefined;
}

async function resultsByPath(
  sql: postgres.Sql,
  samples: OpenLoadSample[],
  arrivals: Map<string, number>,
  pathOf: (index: number) => number,
  pathCount: number,
): Promise<PathResult[]> {
  const results: PathResult[] = Array.from({ length: pathCount }, () => ({
    times: [],
    failures: new Map(),
  }));
  const byRun = new Map<string, OpenLoadSample>();
  for (const sample of samples) {
    const runId = runIdOf(sample);
    if (runId) byRun.set(runId, sample);
    else {
      const { failures } = results[pathOf(sample.index)] as PathResult;
      const why =
        sample.error ?? (sample.status === 200 ? "run not completed" : `HTTP ${sample.status}`);
      failures.set(why, (failures.get(why) ?? 0) + 1);
    }
  }
  const rows = await sql<{ id: string; created: string; started: string }[]>`
    select id, extract(epoch from created_at) * 1000 as created,
      extract(epoch from started_at) * 1000 as started
    from app.runs where id = any(${[...byRun.keys()]})`;
  for (const row of rows) {
    const sample = byRun.get(row.id) as OpenLoadSample;
    const result = results[pathOf(sample.index)] as PathResult;
    const received = arrivals.get(row.id);
    if (received === undefined) {
      const why = "never seen at the endpoint";
      result.failures.set(why, (result.failures.get(why) ?? 0) + 1);
      continue;
    }
    result.times.push({
      admitted: Number(row.created) - sample.dueAt,
      taken: Number(row.started) - sample.dueAt,
      received: received - sample.dueAt,
    });
  }
  return results;
}

function lagP99(samples: OpenLoadSample[]): number {
  return percentile(
    samples.map((sample) => sample.sentAt - sample.dueAt),
    99,
  );
}

function received(result: PathResult): number[] {
  return result.times.map((times) => times.received);
}

function logSeries(series: Series, paths: Path[]) {
  for (const [p, result] of series.results.entries()) {
    const [p50, p95, p99] = tail(received(result));
    console.log(
      `  ${series.name}${series.rate ? ` at ${series.rate}/s` : ""}, ${paths[p]?.name}: p50 ${fixed(p50, 1)} p95 ${fixed(p95, 1)} p99 ${fixed(p99, 1)} ms, ${result.times.length} runs${failuresText(result)}`,
    );
  }
}

function failuresText(result: PathResult): string {
  if (result.failures.size === 0) return "";
  return `; failed: ${[...result.failures].map(([why, count]) => `${count} × ${why}`).join(", ")}`;
}

function report(options: {
  paths: Path[];
  series: Series[];
  parts: WorkerParts[];
  loadBefore: number[];
  loadAfter: number[];
}) {
  const { paths, series, parts } = options;
  const seriesName = (s: Series) => (s.rate ? `open loop, ${s.rate}/s in all` : s.name);
  const ratio = (value: number, baseline: number) => fixed(value / baseline, 2);
  console.log(
    `\nPOST /v1/execute (one-time) → the run's request received at the agent's endpoint, ms: open loop over the ${paths.length} paths in turn (${SECONDS} s per rate after ${WARM_UP_SECONDS} s unmeasured), then ${SERIAL_RUNS} runs per path one at a time:\n`,
  );
  console.log(
    table(
      ["series", "path", "runs", "p50", "p95", "p99", "÷ connected p50", "p95", "p99", "failed"],
      series.flatMap((s) => {
        const baseline = tail(received(s.results[0] as PathResult));
        return s.results.map((result, p) => {
          const ms = tail(received(result));
          return [
            seriesName(s),
            paths[p]?.name ?? "",
            String(result.times.length),
            ...ms.map((value) => fixed(value, 1)),
            ...ms.map((value, i) => ratio(value, baseline[i] as number)),
            String([...result.failures.values()].reduce((sum, n) => sum + n, 0)),
          ];
        });
      }),
    ),
  );
  const p50p95 = (values: number[], digits = 1) =>
    `${fixed(percentile(values, 50), digits)} / ${fixed(percentile(values, 95), digits)}`;
  console.log("\nWhere the time goes, p50 / p95 (ms; the run row's times on Postgres's clock):\n");
  console.log(
    table(
      [
        "series",
        "path",
        "due → admitted",
        "admitted → taken by the worker",
        "taken → request received",
        "generator lag p99",
        "load average",
      ],
      series.flatMap((s) =>
        s.results.map((result, p) => [
          seriesName(s),
          paths[p]?.name ?? "",
          p50p95(result.times.map((t) => t.admitted)),
          p50p95(result.times.map((t) => t.taken - t.admitted)),
          p50p95(result.times.map((t) => t.received - t.taken)),
          fixed(s.lagP99, 2),
          fixed(s.loadAverage, 1),
        ]),
      ),
    ),
  );
  const serial = series.at(-1) as Series;
  console.log(
    "\nCPU ms per run, the whole run, one at a time (each path's blocks; the vendor emulators run in the benchmark process):\n",
  );
  const groups = ["api", "worker", "postgres", "nats", "bench (load generator)"];
  console.log(
    table(
      ["path", ...groups],
      serial.results.map((result, p) => [
        paths[p]?.name ?? "",
        ...groups.map((group) => fixed(result.cpuMsPerRun?.get(group) ?? 0, 2)),
      ]),
    ),
  );
  console.log(
    `\nThe worker's part, each piece alone in the benchmark process, ${PART_SAMPLES} times per path in ${PART_ROUNDS} rounds taking the paths in turn, each after a tenth as many unmeasured; p50 / p95 (ms). The vendor emulators run in this process, the echo agent in its own:\n`,
  );
  const cell = (values: number[]) => (values.length === 0 ? "–" : p50p95(values, 2));
  console.log(
    table(
      ["", ...paths.map((path) => path.name)],
      [
        ["open the sealed part (openAgentSecret)", ...parts.map((x) => cell(x.openSecret))],
        ["open the runtime (runtimeForListing)", ...parts.map((x) => cell(x.openRuntime))],
        ["of which: build the vendor client", ...parts.map((x) => cell(x.buildClient))],
        ["call the runtime → request received", ...parts.map((x) => cell(x.callToRequest))],
      ],
    ),
  );
  console.log(
    [
      "",
      loadAverageLine(options.loadBefore, options.loadAfter),
      reproduce("bench:declarative", [
        "BENCH_RATES",
        "BENCH_SECONDS",
        "BENCH_WARMUP_SECONDS",
        "BENCH_SERIAL_RUNS",
        "BENCH_PROVIDERS",
      ]),
    ].join("\n"),
  );
}
