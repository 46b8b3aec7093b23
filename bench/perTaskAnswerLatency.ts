// Answer latency of POST /v1/execute for per-task runs on a chain that mines a block every 2 s, against
// one-time runs (no debit) in the same run as the baseline: closed-loop clients, 1 at a time and 10 at
// once, back to back and with their arrivals spread over the block time; then where a per-task run's
// time goes between its finish and its answer (debit sent, mined, receipt applied), from the run row,
// the settlement's log lines and the chain's blocks as first seen. The same steps again with anvil
// switched to automine (a block per transaction) as a reference. Run: npm run bench:answer-latency
import { loadavg } from "node:os";
import postgres from "postgres";
import { ensureDevCertificates } from "../devStack/devCertificates.ts";
import { rpcRequest } from "../devStack/startAnvil.ts";
import { toApiListingId } from "../lib/ids/listingId.ts";
import { startBenchStack, UNLIMITED_RATE } from "./benchStack.ts";
import { type BenchModel, type ExecutionFixture, setUpExecution } from "./executionFixture.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { startEchoAgent } from "./startEchoAgent.ts";
import { percentile } from "./statistics.ts";

const BLOCK_SECONDS = Number(process.env.BENCH_BLOCK_SECONDS ?? 2);
const SEQUENTIAL_RUNS = Number(process.env.BENCH_SEQUENTIAL_RUNS ?? 30);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 10);
const CONCURRENT_RUNS = Number(process.env.BENCH_CONCURRENT_RUNS ?? 60);
/** Unset or 1: the steps again on automine, as a reference; 0 skips them. */
const AUTOMINE_REFERENCE = process.env.BENCH_AUTOMINE_REFERENCE !== "0";
const WARM_UP_RUNS = 5;
const RENTERS = 10;
/** How often the chain's head is read, to time when each block appeared. */
const HEAD_POLL_MS = 20;

type Mining = "blocks" | "automine";

/** A load: `clients` closed-loop clients sending `runs` requests in all, each once answered. */
type Shape = {
  name: string;
  clients: number;
  runs: number;
  /**
   * Before each request, a client waits a random time within one block time: arrivals fall anywhere
   * in a block, not just after the block that answered the last request.
   */
  spread: boolean;
  /** Request i is of model `models[i % models.length]`. */
  models: BenchModel[];
};

type Sample = {
  model: BenchModel;
  sentAt: number;
  answeredAt: number;
  status: number;
  runId?: string;
  runStatus?: string;
  error?: string;
};

/** A per-task run's debit, from its row, the settlement's log and the heads seen (epoch ms). */
type DebitTimes = {
  answer: number;
  finishToAnswer: number;
  finishToSent: number;
  sentToMined: number;
  minedToApplied: number;
  appliedToAnswer: number;
  /** The answer had it come as the debit was sent: the wait from sent to applied taken off. */
  answerIfSent: number;
  debitTx: string;
};

type StepResult = {
  mining: Mining;
  shape: Shape;
  seconds: number;
  samples: Sample[];
  /** By model, each answered request's latency and its finish-to-answer time (ms). */
  answers: Map<BenchModel, { answer: number; finishToAnswer: number }[]>;
  debits: DebitTimes[];
  failures: Map<string, number>;
  loadAverage: number;
};

function shapes(): Shape[] {
  const list: Shape[] = [];
  for (const [clients, runs] of [
    [1, SEQUENTIAL_RUNS],
    [CONCURRENT, CONCURRENT_RUNS],
  ] as const) {
    for (const spread of [false, true]) {
      const name = `${clients === 1 ? "1 at a time" : `${clients} concurrent`}, ${spread ? "arrivals spread" : "back to back"}`;
      for (const model of ["one-time", "per-task"] as const) {
        list.push({ name, clients, runs, spread, models: [model] });
      }
    }
  }
  list.push({
    name: `${CONCURRENT} concurrent, arrivals spread, one-time and per-task alternating`,
    clients: CONCURRENT,
    runs: CONCURRENT_RUNS,
    spread: true,
    models: ["one-time", "per-task"],
  });
  return list;
}

await runBenchmark(async (cleanup) => {
  const startedAt = performance.now();
  const settlementLog = new Map<string, { sent?: number; applied?: number }>();
  const stack = await startBenchStack(cleanup, {
    nats: true,
    api: 1,
    blockTimeSeconds: BLOCK_SECONDS,
    rateLimitPerMinute: UNLIMITED_RATE,
    env: { EXECUTION_RATE_LIMIT_PER_MINUTE: String(UNLIMITED_RATE) },
    onOutput: (line) => noteSettlementLine(line, settlementLog),
  });
  const echo = await startEchoAgent(await ensureDevCertificates(stack.dir));
  cleanup.add("echo agent", echo.stop);
  await stack.addWorker();
  const fixture = await setUpExecution(stack, echo, RENTERS);
  const heads = watchHeads(stack.anvil.rpcUrl);
  cleanup.add("head watch", heads.stop);
  const sql = postgres(stack.postgres.databaseUrl, { max: 1, onnotice: () => {} });
  cleanup.add("database", () => sql.end());
  console.log(
    `Stack ready after ${fixed((performance.now() - startedAt) / 1000)} s: anvil (a block every ${BLOCK_SECONDS} s), Postgres, NATS, Ponder, API, worker, echo agent; ${RENTERS} renters.`,
  );

  const loadBefore = loadavg();
  const results: StepResult[] = [];
  for (const mining of AUTOMINE_REFERENCE
    ? (["blocks", "automine"] as const)
    : (["blocks"] as const)) {
    if (mining === "automine") await rpcRequest(stack.anvil.rpcUrl, "evm_setAutomine", [true]);
    for (const model of ["one-time", "per-task"] as const) {
      await runShape(stack.api.url, fixture, {
        name: "warm-up",
        clients: 1,
        runs: WARM_UP_RUNS,
        spread: false,
        models: [model],
      });
    }
    await untilSettled(sql);
    for (const shape of shapes()) {
      const from = performance.now();
      const samples = await runShape(stack.api.url, fixture, shape);
      const seconds = (performance.now() - from) / 1000;
      await untilSettled(sql);
      const result = {
        mining,
        shape,
        seconds,
        samples,
        loadAverage: loadavg()[0] ?? 0,
        ...(await timesOf(sql, samples, settlementLog, heads.seenAt)),
      };
      results.push(result);
      console.log(`  ${mining}, ${shape.name}: ${stepLine(result)}`);
    }
  }
  report(results, loadBefore, loadavg());
});

/** Sends `shape`'s requests from its clients, each the next once answered. */
async function runShape(apiUrl: string, fixture: ExecutionFixture, shape: Shape) {
  const samples: Sample[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: shape.clients }, async (_, client) => {
      while (next < shape.runs) {
        const index = next++;
        if (shape.spread) await sleep(Math.random() * BLOCK_SECONDS * 1000);
        const model = shape.models[index % shape.models.length] as BenchModel;
        // A client keeps to one renter: concurrent runs come from different wallets, as from renters.
        const key = fixture.keys[(shape.clients === 1 ? index : client) % fixture.keys.length];
        const sentAt = wallClock();
        try {
          const response = await fetch(`${apiUrl}/v1/execute`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({
              agent_id: toApiListingId(fixture.listings[model]),
              task: `answer ${index}`,
              input: { text: "hello" },
            }),
            signal: AbortSignal.timeout(60_000),
          });
          const body = (await response.json()) as { run_id?: string; status?: string };
          samples.push({
            model,
            sentAt,
            answeredAt: wallClock(),
            status: response.status,
            runId: body.run_id,
            runStatus: body.status,
          });
        } catch (error) {
          samples.push({ model, sentAt, answeredAt: wallClock(), status: 0, error: String(error) });
        }
      }
    }),
  );
  return samples;
}

/** Until no run awaits its debit or its log on-chain: the next step starts with the settlement idle. */
async function untilSettled(sql: postgres.Sql) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const [row] = await sql<{ pending: number }[]>`
      select count(*)::int as pending from app.runs
      where charge in ('reserved', 'debit_pending')
        or (not logged and status in ('completed', 'failed'))`;
    if (row?.pending === 0) return;
    await sleep(100);
  }
  throw new Error("runs still unsettled after 120 s");
}

/** Notes when the settlement logged each debit transaction sent, and its receipt applied. */
function noteSettlementLine(line: string, log: Map<string, { sent?: number; applied?: number }>) {
  if (!line.includes('"debit batch sent"') && !line.includes('"debit batch settled"')) return;
  let entry: { time?: string; tx?: string; message?: string };
  try {
    entry = JSON.parse(line);
  } catch {
    return;
  }
  if (!entry.tx || !entry.time) return;
  const times = log.get(entry.tx) ?? {};
  const at = Date.parse(entry.time);
  if (entry.message === "debit batch sent") times.sent = at;
  else times.applied = at;
  log.set(entry.tx, times);
}

/** Reads the chain's head every HEAD_POLL_MS: when each block was first seen (epoch ms). */
function watchHeads(rpcUrl: string) {
  const seenAt = new Map<bigint, number>();
  let highest: bigint | undefined;
  let running = true;
  const watching = (async () => {
    while (running) {
      try {
        const head = BigInt((await rpcRequest(rpcUrl, "eth_blockNumber")) as string);
        const at = wallClock();
        for (let block = (highest ?? head - 1n) + 1n; block <= head; block++) seenAt.set(block, at);
        if (highest === undefined || head > highest) highest = head;
      } catch {
        // The chain stopped with the stack.
      }
      await sleep(HEAD_POLL_MS);
    }
  })();
  return {
    seenAt,
    stop: async () => {
      running = false;
      await watching;
    },
  };
}

async function timesOf(
  sql: postgres.Sql,
  samples: Sample[],
  settlementLog: Map<string, { sent?: number; applied?: number }>,
  seenAt: Map<bigint, number>,
): Promise<Pick<StepResult, "answers" | "debits" | "failures">> {
  const failures = new Map<string, number>();
  const fail = (why: string) => failures.set(why, (failures.get(why) ?? 0) + 1);
  const answeredRuns = new Map<string, Sample>();
  for (const sample of samples) {
    if (sample.status !== 200) fail(sample.error ?? `HTTP ${sample.status}`);
    else if (sample.runStatus !== "completed" || !sample.runId) fail(`run ${sample.runStatus}`);
    else answeredRuns.set(sample.runId, sample);
  }
  const rows = await sql<
    {
      id: string;
      finished: string;
      charge: string;
      debit_tx: string | null;
      debit_block: string | null;
    }[]
  >`
    select id, extract(epoch from finished_at) * 1000 as finished, charge, debit_tx,
      debit_block::text
    from app.runs where id = any(${[...answeredRuns.keys()]})`;
  // The settlement logs a receipt applied after it marks the runs: its line may still be on its way.
  const logDeadline = Date.now() + 5_000;
  const logged = (tx: string | null) => {
    const times = tx ? settlementLog.get(tx) : undefined;
    return times?.sent !== undefined && times.applied !== undefined;
  };
  while (rows.some((row) => row.debit_tx && !logged(row.debit_tx)) && Date.now() < logDeadline) {
    await sleep(50);
  }
  const answers = new Map<BenchModel, { answer: number; finishToAnswer: number }[]>();
  const debits: DebitTimes[] = [];
  for (const row of rows) {
    const sample = answeredRuns.get(row.id) as Sample;
    const answer = sample.answeredAt - sample.sentAt;
    const finishToAnswer = sample.answeredAt - Number(row.finished);
    const list = answers.get(sample.model) ?? [];
    list.push({ answer, finishToAnswer });
    answers.set(sample.model, list);
    if (sample.model !== "per-task") continue;
    if (row.charge !== "debited") {
      fail(`per-task charge ${row.charge}`);
      continue;
    }
    const times = settlementLog.get(row.debit_tx as string);
    const mined = row.debit_block ? seenAt.get(BigInt(row.debit_block)) : undefined;
    if (times?.sent === undefined || times.applied === undefined || mined === undefined) {
      fail("debit not found in the settlement's log or the heads seen");
      continue;
    }
    const { sent, applied } = times;
    debits.push({
      answer,
      finishToAnswer,
      finishToSent: sent - Number(row.finished),
      sentToMined: mined - sent,
      minedToApplied: applied - mined,
      appliedToAnswer: sample.answeredAt - applied,
      answerIfSent: answer - (applied - sent),
      debitTx: row.debit_tx as string,
    });
  }
  return { answers, debits, failures };
}

function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function p(values: number[], at: number): number {
  return percentile(values, at);
}

function ms(value: number): string {
  return Number.isNaN(value) ? "–" : fixed(value, 0);
}

function ratio(value: number, base: number): string {
  return Number.isNaN(value) || Number.isNaN(base) ? "–" : fixed(value / base, 1);
}

function latencies(result: StepResult, model: BenchModel): number[] {
  return (result.answers.get(model) ?? []).map((times) => times.answer);
}

function stepLine(result: StepResult): string {
  const parts = result.shape.models.map((model) => {
    const values = latencies(result, model);
    return `${model} p50 ${ms(p(values, 50))} p95 ${ms(p(values, 95))} ms (${values.length})`;
  });
  const failed = [...result.failures].map(([why, count]) => `${count} × ${why}`).join(", ");
  return `${parts.join("; ")}, ${fixed(result.seconds, 1)} s${failed ? `; failed: ${failed}` : ""}`;
}

function report(results: StepResult[], loadBefore: number[], loadAfter: number[]) {
  const miningName = (mining: Mining) =>
    mining === "blocks" ? `${BLOCK_SECONDS} s blocks` : "automine";
  // The one-time and per-task steps of each shape side by side; the alternating shape on its own.
  const paired = new Map<string, { oneTime?: StepResult; perTask?: StepResult }>();
  for (const result of results) {
    const key = `${result.mining}|${result.shape.name}`;
    const pair = paired.get(key) ?? {};
    if (result.shape.models.length === 2) {
      pair.oneTime = result;
      pair.perTask = result;
    } else if (result.shape.models[0] === "one-time") pair.oneTime = result;
    else pair.perTask = result;
    paired.set(key, pair);
  }
  console.log(
    "\nAnswer latency of POST /v1/execute (request sent → whole answer in), ms; per-task ÷ one-time in the same load:\n",
  );
  console.log(
    table(
      [
        "chain, load",
        "one-time p50",
        "p95",
        "per-task p50",
        "p95",
        "÷ p50",
        "÷ p95",
        "one-time runs/s (back to back)",
        "per-task runs/s",
        "load avg",
      ],
      [...paired].map(([key, { oneTime, perTask }]) => {
        const [mining, name] = key.split("|") as [Mining, string];
        const base = oneTime ? latencies(oneTime, "one-time") : [];
        const values = perTask ? latencies(perTask, "per-task") : [];
        // Back to back only: spread arrivals wait by design between requests.
        const throughput = (result: StepResult | undefined, model: BenchModel) =>
          !result || result.shape.spread
            ? "–"
            : fixed(latencies(result, model).length / result.seconds, 1);
        return [
          `${miningName(mining)}, ${name}`,
          ms(p(base, 50)),
          ms(p(base, 95)),
          ms(p(values, 50)),
          ms(p(values, 95)),
          ratio(p(values, 50), p(base, 50)),
          ratio(p(values, 95), p(base, 95)),
          throughput(oneTime, "one-time"),
          throughput(perTask, "per-task"),
          fixed(Math.max(oneTime?.loadAverage ?? 0, perTask?.loadAverage ?? 0), 1),
        ];
      }),
    ),
  );
  const perTaskResults = results.filter((result) => result.debits.length > 0);
  const pair = (values: number[]) => `${ms(p(values, 50))} / ${ms(p(values, 95))}`;
  console.log(
    "\nA per-task run from its finish to its answer, p50 / p95 ms: finished (run row) → debit sent (settlement's log, after the broadcast) → mined (block first seen, head read every 20 ms) → receipt applied (settlement's log) → answer in; and the answer had it come once the debit was sent (the latency less sent → applied):\n",
  );
  console.log(
    table(
      [
        "chain, load",
        "finish → sent",
        "sent → mined",
        "mined → applied",
        "applied → answer",
        "finish → answer",
        "one-time finish → answer",
        "debits per tx",
        "answer if sent",
        "÷ one-time p50",
      ],
      perTaskResults.map((result) => {
        const [key] = [...paired].find(([, value]) => value.perTask === result) ?? [];
        const oneTime = key ? paired.get(key)?.oneTime : undefined;
        const baseFinish = (oneTime?.answers.get("one-time") ?? []).map((t) => t.finishToAnswer);
        const base = oneTime ? latencies(oneTime, "one-time") : [];
        const field = (name: keyof DebitTimes) =>
          result.debits.map((times) => times[name] as number);
        const txs = new Set(result.debits.map((times) => times.debitTx));
        return [
          `${miningName(result.mining)}, ${result.shape.name}`,
          pair(field("finishToSent")),
          pair(field("sentToMined")),
          pair(field("minedToApplied")),
          pair(field("appliedToAnswer")),
          pair(field("finishToAnswer")),
          pair(baseFinish),
          fixed(result.debits.length / txs.size, 1),
          pair(field("answerIfSent")),
          ratio(p(field("answerIfSent"), 50), p(base, 50)),
        ];
      }),
    ),
  );
  const failed = results.filter((result) => result.failures.size > 0);
  for (const result of failed) {
    console.log(
      `Failed in ${miningName(result.mining)}, ${result.shape.name}: ${[...result.failures].map(([why, count]) => `${count} × ${why}`).join(", ")}`,
    );
  }
  console.log(
    [
      "",
      loadAverageLine(loadBefore, loadAfter),
      reproduce("bench:answer-latency", [
        "BENCH_BLOCK_SECONDS",
        "BENCH_SEQUENTIAL_RUNS",
        "BENCH_CONCURRENT",
        "BENCH_CONCURRENT_RUNS",
        "BENCH_AUTOMINE_REFERENCE",
      ]),
    ].join("\n"),
  );
}
