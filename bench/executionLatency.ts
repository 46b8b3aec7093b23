// Start-of-execution latency of POST /v1/execute with a connected agent: open-loop requests at 50,
// 150 and 300 a second (then more, to find the highest rate sustained), one-time and per-task,
// timed from when each was due at the load generator to when the echo agent's webhook received its
// run; beside the serial floor of one eth_call, one Postgres round trip and one JetStream publish
// measured in the same run; then the gas per debit of the settlement's real transactions at 1, 10
// and 50 concurrent per-task runs. Run: npm run bench:execution
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, http } from "viem";
import { ensureDevCertificates } from "../devStack/devCertificates.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { startBenchStack, UNLIMITED_RATE } from "./benchStack.ts";
import { type DebitGas, measureDebitGas } from "./debitGas.ts";
import { type BenchModel, setUpExecution } from "./executionFixture.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { measureStep, type RunTimes, type Step } from "./measureStep.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { measureSerialFloor, type SerialFloor } from "./serialFloor.ts";
import { startEchoAgent } from "./startEchoAgent.ts";
import { percentile, tail } from "./statistics.ts";

const list = (name: string, fallback: string) =>
  (process.env[name] ?? fallback).split(",").filter(Boolean).map(Number);
const RATES = list("BENCH_RATES", "50,150,300");
/** Rates tried past the last of RATES while each is sustained, to find the highest. */
const RAMP = list("BENCH_RAMP", "400,500,600,800,1000");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const RENTERS = Number(process.env.BENCH_RENTERS ?? 10);
const GAS_LEVELS = list("BENCH_GAS_CONCURRENCY", "1,10,50");
const GAS_RUNS_PER_CLIENT = Number(process.env.BENCH_GAS_RUNS_PER_CLIENT ?? 20);
/** Halvings of the gap between the highest rate sustained and the lowest not. */
const BISECTIONS = Number(process.env.BENCH_BISECTIONS ?? 3);
const FLOOR_SAMPLES = 500;
/** The specification's target for the start of execution, p95. */
const SPEC_P95_MS = 200;
const MODELS: BenchModel[] = ["one-time", "per-task"];
/** Set, the API and worker processes write V8 CPU profiles there as they stop. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

await runBenchmark(async (cleanup) => {
  const startedAt = performance.now();
  // The API and worker write their Postgres transaction counts here (lib/db/transactionCount.ts).
  const transactionCountDir = mkdtempSync(join(tmpdir(), "pg-transactions-"));
  const stack = await startBenchStack(cleanup, {
    nats: true,
    api: 1,
    rateLimitPerMinute: UNLIMITED_RATE,
    env: {
      EXECUTION_RATE_LIMIT_PER_MINUTE: String(UNLIMITED_RATE),
      PG_TRANSACTION_COUNT_DIR: transactionCountDir,
      ...(PROFILE_DIR && { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` }),
    },
  });
  // The worker trusts the dev CA of the stack's DATA_DIR on the local chain: made before it starts.
  const echo = await startEchoAgent(await ensureDevCertificates(stack.dir));
  cleanup.add("echo agent", echo.stop);
  await stack.addWorker();
  const fixture = await setUpExecution(stack, echo, RENTERS);
  console.log(
    `Stack ready after ${fixed((performance.now() - startedAt) / 1000)} s: anvil, Postgres, NATS, Ponder, API, worker, echo agent; ${RENTERS} renters.`,
  );

  const loadBefore = loadavg();
  const floor = await measureSerialFloor({
    rpcUrl: stack.anvil.rpcUrl,
    marketplace: stack.deployment.address,
    listing: fixture.listings["per-task"],
    wallet: devAccount(10).address,
    databaseUrl: stack.postgres.databaseUrl,
    natsUrl: stack.nats.natsUrl,
    samples: FLOOR_SAMPLES,
  });
  const floorP50 = floorSum(floor, 50);
  console.log(`  serial floor p50 ${fixed(floorP50, 2)} ms`);

  const step = async (model: BenchModel, rate: number) => {
    const measured = await measureStep({
      apiUrl: stack.api.url,
      databaseUrl: stack.postgres.databaseUrl,
      transactionCountDir,
      fixture,
      echo,
      model,
      rate,
      seconds: SECONDS,
      warmUpSeconds: WARM_UP_SECONDS,
    });
    const [p50, p95, p99] = tail(measured.completed.map((times) => times.received));
    console.log(
      `  ${model} at ${rate}/s: start p50 ${fixed(p50, 1)} p95 ${fixed(p95, 1)} p99 ${fixed(p99, 1)} ms, ${measured.completed.length}/${measured.sent} completed${failuresText(measured)}`,
    );
    return measured;
  };

  const steps: Step[] = [];
  for (const rate of RATES) for (const model of MODELS) steps.push(await step(model, rate));

  const highest = new Map<BenchModel, { sustained?: Step; notSustained?: Step }>();
  for (const model of MODELS) {
    const ofModel = () => steps.filter((s) => s.model === model).sort((a, b) => a.rate - b.rate);
    const bounds = () => {
      const sorted = ofModel();
      const firstFail = sorted.find((s) => !sustained(s));
      const below = sorted.filter((s) => !firstFail || s.rate < firstFail.rate);
      return { sustained: below.at(-1), notSustained: firstFail };
    };
    for (const rate of RAMP) {
      if (bounds().notSustained) break;
      steps.push(await step(model, rate));
    }
    for (let i = 0; i < BISECTIONS; i++) {
      const { sustained: low, notSustained: high } = bounds();
      if (!high) break;
      const rate = Math.round(((low?.rate ?? 0) + high.rate) / 2);
      if (rate === low?.rate || rate === high.rate) break;
      steps.push(await step(model, rate));
    }
    highest.set(model, bounds());
  }

  const client = createPublicClient({ transport: http(stack.anvil.rpcUrl) });
  const gas: DebitGas[] = [];
  for (const concurrency of GAS_LEVELS) {
    const measured = await measureDebitGas({
      apiUrl: stack.api.url,
      databaseUrl: stack.postgres.databaseUrl,
      client,
      fixture,
      concurrency,
      runs: concurrency * GAS_RUNS_PER_CLIENT,
    });
    gas.push(measured);
    console.log(
      `  gas at ${concurrency} concurrent: ${fixed(gasPerDebit(measured), 0)} per debit over ${measured.transactions.length} transactions`,
    );
  }
  report({ floor, steps, highest, gas, loadBefore, loadAfter: loadavg() });
});

/** Every request completed and was seen at the agent, and the start's p95 is within the spec's. */
function sustained(step: Step): boolean {
  if (step.failures.size > 0 || step.completed.length !== step.sent) return false;
  return (
    percentile(
      step.completed.map((times) => times.received),
      95,
    ) <= SPEC_P95_MS
  );
}

function whyNotSustained(step: Step): string {
  const received = step.completed.map((times) => times.received);
  if (received.length === 0) return `none completed${failuresText(step)}`;
  return `p95 ${fixed(percentile(received, 95), 0)} ms${failuresText(step)}`;
}

function failuresText(step: Step): string {
  if (step.failures.size === 0) return "";
  return `; failed: ${[...step.failures].map(([why, count]) => `${count} × ${why}`).join(", ")}`;
}

function floorSum(floor: SerialFloor, p: number): number {
  return (
    percentile(floor.ethCallMs, p) +
    percentile(floor.postgresMs, p) +
    percentile(floor.jetStreamMs, p)
  );
}

function gasPerDebit(measured: DebitGas): number {
  const gasUsed = measured.transactions.reduce((sum, tx) => sum + tx.gasUsed, 0n);
  const debits = measured.transactions.reduce((sum, tx) => sum + tx.debits, 0);
  return Number(gasUsed) / debits;
}

function report(options: {
  floor: SerialFloor;
  steps: Step[];
  highest: Map<BenchModel, { sustained?: Step; notSustained?: Step }>;
  gas: DebitGas[];
  loadBefore: number[];
  loadAfter: number[];
}) {
  const { floor, steps } = options;
  const ms = (values: number[]) =>
    values.length === 0
      ? ["–", "–", "–", "–"]
      : [...tail(values).map((value) => fixed(value, 1)), fixed(Math.max(...values), 1)];
  const floorP50 = floorSum(floor, 50);
  const byRate = [...steps].sort((a, b) => a.rate - b.rate || a.model.localeCompare(b.model));
  const received = (step: Step) => step.completed.map((times) => times.received);
  console.log(
    `\nStart of execution: POST /v1/execute due at the load generator (open loop, ${SECONDS} s per step after ${WARM_UP_SECONDS} s unmeasured) → the echo agent's webhook received the run. ms:\n`,
  );
  console.log(
    table(
      ["", "offered /s", "completed /s", "p50", "p95", "p99", "max", "p50 ÷ floor p50", "failed"],
      [
        [
          "serial floor: eth_call + Postgres round trip + JetStream publish",
          "–",
          "–",
          fixed(floorP50, 2),
          fixed(floorSum(floor, 95), 2),
          fixed(floorSum(floor, 99), 2),
          "–",
          "1",
          "–",
        ],
        ...byRate.map((step) => [
          step.model,
          String(step.rate),
          fixed(step.completed.length / step.seconds, 0),
          ...ms(received(step)),
          step.completed.length === 0 ? "–" : fixed(percentile(received(step), 50) / floorP50, 1),
          String(step.sent - step.completed.length),
        ]),
      ],
    ),
  );
  console.log("\nThe floor's parts, measured one at a time from the benchmark process (ms):\n");
  console.log(
    table(
      ["", "p50", "p95", "p99", "max"],
      [
        ["eth_call getAccessState (viem)", ...ms(floor.ethCallMs)],
        ["Postgres select 1 (postgres.js)", ...ms(floor.postgresMs)],
        ["JetStream publish + ack", ...ms(floor.jetStreamMs)],
      ],
    ),
  );
  const segment = (step: Step, from: keyof RunTimes | undefined, to: keyof RunTimes) =>
    step.completed.map((times) => times[to] - (from ? times[from] : 0));
  const p50p95 = (values: number[]) =>
    values.length === 0
      ? "–"
      : `${fixed(percentile(values, 50), 1)} / ${fixed(percentile(values, 95), 1)}`;
  console.log("\nWhere the time goes, p50 / p95 (ms):\n");
  console.log(
    table(
      [
        "",
        "offered /s",
        "due → admitted (run row's transaction began)",
        "admitted → a worker took it",
        "taken → webhook received",
        "webhook → whole answer",
        "generator lag p99",
        "drain",
        "load average",
      ],
      byRate.map((step) => [
        step.model,
        String(step.rate),
        p50p95(segment(step, undefined, "admitted")),
        p50p95(segment(step, "admitted", "taken")),
        p50p95(segment(step, "taken", "received")),
        p50p95(segment(step, "received", "answered")),
        fixed(percentile(step.lagMs, 99), 2),
        Number.isNaN(step.drainMs) ? "–" : fixed(step.drainMs, 0),
        fixed(step.loadAverage, 1),
      ]),
    ),
  );
  const groups = [
    "api",
    "worker",
    "postgres",
    "nats",
    "anvil",
    "echo agent",
    "bench (load generator)",
  ];
  console.log(
    "\nCPU during each measured step: cores (of 2) by process, CPU ms per request, Postgres transactions per request (all processes; the API's and the worker's as they counted them, the rest — Ponder, this benchmark — by difference):\n",
  );
  const perRun = (step: Step, group: string) => step.transactionsPerRunBy.get(group) ?? 0;
  console.log(
    table(
      [
        "",
        "offered /s",
        ...groups,
        "ms api",
        "ms worker",
        "ms postgres",
        "ms api + worker + postgres",
        "pg xacts",
        "pg xacts api",
        "pg xacts worker",
        "pg xacts rest",
      ],
      byRate.map((step) => [
        step.model,
        String(step.rate),
        ...groups.map((group) => fixed(step.cores.get(group) ?? 0, 2)),
        ...["api", "worker", "postgres"].map((group) => fixed(step.cpuMsPerRun.get(group) ?? 0, 2)),
        fixed(
          ["api", "worker", "postgres"].reduce(
            (sum, group) => sum + (step.cpuMsPerRun.get(group) ?? 0),
            0,
          ),
          2,
        ),
        fixed(step.transactionsPerRun, 2),
        fixed(perRun(step, "api"), 2),
        fixed(perRun(step, "worker"), 2),
        fixed(step.transactionsPerRun - perRun(step, "api") - perRun(step, "worker"), 2),
      ]),
    ),
  );
  console.log(
    "\nCPU per run at the margin, ms: what each further run a second costs, (cores at the highest rate − cores at the lowest) ÷ (the rates' difference), without what the processes spend at any rate (timers, polling, the indexer's reads):\n",
  );
  console.log(
    table(
      ["", "between /s", "ms api", "ms worker", "ms postgres", "ms api + worker + postgres"],
      MODELS.flatMap((model) => {
        const steps = byRate.filter((step) => step.model === model);
        const [low, high] = [steps[0], steps.at(-1)];
        if (!low || !high || high.rate === low.rate) return [];
        const margin = ["api", "worker", "postgres"].map(
          (group) =>
            (((high.cores.get(group) ?? 0) - (low.cores.get(group) ?? 0)) * 1000) /
            (high.rate - low.rate),
        );
        return [
          [
            model,
            `${low.rate}–${high.rate}`,
            ...margin.map((ms) => fixed(ms, 2)),
            fixed(
              margin.reduce((sum, ms) => sum + ms, 0),
              2,
            ),
          ],
        ];
      }),
    ),
  );
  for (const step of byRate.filter((step) => step.rate === byRate[0]?.rate)) {
    console.log(
      `\nPostgres transactions per ${step.model} run at ${step.rate}/s, by process and first statement (per run ≥ 0.01):\n`,
    );
    console.log(
      table(
        ["process", "first statement (begin; …: an explicit transaction)", "per run"],
        [...step.transactionsByStatement].flatMap(([group, statements]) =>
          [...statements]
            .filter(([, perRun]) => perRun >= 0.01)
            .sort((a, b) => b[1] - a[1])
            .map(([name, perRun]) => [group, name.replaceAll("|", "\\|"), fixed(perRun, 2)]),
        ),
      ),
    );
  }
  console.log(
    `\nHighest rate sustained (every request completed, start p95 ≤ ${SPEC_P95_MS} ms), and the lowest tried that was not:\n`,
  );
  console.log(
    table(
      ["", "sustained /s", "its p95", "not sustained /s", "why"],
      [...options.highest].map(([model, { sustained: low, notSustained: high }]) => [
        model,
        low ? String(low.rate) : "none",
        low ? fixed(percentile(received(low), 95), 1) : "–",
        high ? String(high.rate) : "none tried",
        high ? whyNotSustained(high) : "–",
      ]),
    ),
  );
  const base = options.gas[0] ? gasPerDebit(options.gas[0]) : Number.NaN;
  console.log(
    "\nGas per debit, from the settlement's settle receipts (closed loop: each client sends its next run when the last is answered, i.e. debited; a debit batch carries the anchor of earlier runs' receipts), and the settlement's whole gas per run with the anchors sent alone:\n",
  );
  console.log(
    table(
      [
        "concurrent runs",
        "runs",
        "transactions",
        "debits per tx (mean)",
        "gas per tx (mean)",
        "gas per debit",
        `÷ at ${options.gas[0]?.concurrency}`,
        "anchors alone",
        "settlement gas per run",
      ],
      options.gas.map((measured) => {
        const debits = measured.transactions.reduce((sum, tx) => sum + tx.debits, 0);
        const gasUsed = measured.transactions.reduce((sum, tx) => sum + tx.gasUsed, 0n);
        const anchorGas = measured.anchorTransactions.reduce((sum, tx) => sum + tx.gasUsed, 0n);
        return [
          String(measured.concurrency),
          String(measured.runs),
          String(measured.transactions.length),
          fixed(debits / measured.transactions.length, 1),
          fixed(Number(gasUsed) / measured.transactions.length, 0),
          fixed(gasPerDebit(measured), 0),
          fixed(gasPerDebit(measured) / base, 2),
          String(measured.anchorTransactions.length),
          fixed(Number(gasUsed + anchorGas) / measured.runs, 0),
        ];
      }),
    ),
  );
  console.log(
    [
      "",
      loadAverageLine(options.loadBefore, options.loadAfter),
      reproduce("bench:execution", [
        "BENCH_RATES",
        "BENCH_RAMP",
        "BENCH_SECONDS",
        "BENCH_WARMUP_SECONDS",
        "BENCH_RENTERS",
        "BENCH_BISECTIONS",
        "BENCH_GAS_CONCURRENCY",
        "BENCH_GAS_RUNS_PER_CLIENT",
        "BENCH_PROFILE_DIR",
      ]),
    ].join("\n"),
  );
}
