// Registration throughput: agents submitted through POST /v1/agents, carried over NATS JetStream to
// worker processes, validated and stored (job completed), with 1 and then 2 workers; beside the
// JetStream publish-and-ack round trip on the same NATS server, measured in the same run as the floor.
// Run: npm run bench:registration
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import postgres from "postgres";
import { createApiKey } from "../devStack/client/createApiKey.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { validateManifest } from "../lib/manifest/validateManifest.ts";
import { startBenchStack, UNLIMITED_RATE } from "./benchStack.ts";
import { type JetStreamFloor, measureJetStreamPublish } from "./jetStreamFloor.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { type CpuReading, classifyService, cpuSpent, readCpu } from "./processCpu.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { type PgActivity, samplePgActivity } from "./samplePgActivity.ts";
import { percentile, tail } from "./statistics.ts";

const JOBS = Number(process.env.BENCH_JOBS ?? 300);
const SUBMIT_CONCURRENCY = Number(process.env.BENCH_SUBMIT_CONCURRENCY ?? 20);
const WORKER_COUNTS = [1, 2];
/** Untimed jobs before each measured batch: compiled code paths, open connections. */
const WARM_UP_JOBS = 20;
const FLOOR_PUBLISHES = 1000;
const FLOOR_WARM_UP = 100;
const VALIDATION_SAMPLES = 200;
const POLL_MS = 20;
const BATCH_TIMEOUT_MS = 180_000;

/** A valid hosted-vendor manifest, as in test/registration/endToEnd.test.ts, named `name`. */
function registration(name: string) {
  return {
    name,
    title: "Tax Return Summariser",
    category: "finance",
    description: "Turns a year of statements into a one-page summary of deductible expenses",
    model: { provider: "anthropic", model: "claude-sonnet-4" },
    system_prompt:
      "You are a careful tax assistant. List every deductible expense with its receipt.",
    tools: [{ name: "read_input", scope: "input_only" }],
    input_schema: {
      type: "object",
      properties: { statements: { type: "string" }, year: { type: "integer" } },
      required: ["statements"],
    },
    output_schema: { type: "string" },
    timeout_seconds: 120,
    sample_output: ["Deductible: 4,210 USD across 37 receipts."],
    creator_display_name: "Ledger & Co",
    vendor_credentials: { api_key: `sk-vendor-${randomBytes(8).toString("hex")}` },
  };
}

/**
 * Counts the lines of the servers' output containing each of `needles`, and sums their `"count":N`
 * fields where they have one. Each log line reaches the pipe in one write, so a chunk holds whole
 * lines, even with several processes printing.
 */
function lineCounter(needles: string[]) {
  const counts = new Map(needles.map((needle) => [needle, 0]));
  const sums = new Map(needles.map((needle) => [needle, 0]));
  return {
    counts,
    sums,
    onOutput: (chunk: string) => {
      for (const line of chunk.split("\n")) {
        for (const needle of needles) {
          if (!line.includes(needle)) continue;
          counts.set(needle, (counts.get(needle) ?? 0) + 1);
          const count = /"count":(\d+)/.exec(line)?.[1];
          if (count) sums.set(needle, (sums.get(needle) ?? 0) + Number(count));
        }
      }
    },
  };
}

type Submissions = {
  /** Per request, from writing it to the end of the answer. */
  submitMs: number[];
  firstSent: number;
  lastAnswer: number;
};

type Batch = {
  workers: number;
  submitMs: number[];
  /** Jobs per second, first submit to last completion, on the server's clocks (created_at, updated_at). */
  serverPerSecond: number;
  serverSeconds: number;
  /** The same seen from the benchmark: first request sent to the poll that saw the last completion. */
  clientPerSecond: number;
  submitPerSecond: number;
  queueMs: number[];
  createdToPublishedMs: number[];
  publishedToCompletedMs: number[];
  cores: Map<string, number>;
  /** CPU seconds by process over the batch. */
  spent: Map<string, number>;
  activity: PgActivity;
};

const LOG = {
  relayed: '"outbox relay published jobs"',
  notOnBus: "job not yet on the bus",
  completed: '"outcome":"completed"',
  failed: '"outcome":"failed"',
  alreadyDone: '"outcome":"already_done"',
  attemptFailed: "registration attempt failed",
};

await runBenchmark(async (cleanup) => {
  const startedAt = performance.now();
  const serverLog = lineCounter(Object.values(LOG));
  // The API alone over NATS (api/process/server.ts); workers join later. Registration reads no projections.
  const stack = await startBenchStack(cleanup, {
    nats: true,
    api: 1,
    ponder: false,
    rateLimitPerMinute: UNLIMITED_RATE,
    onOutput: serverLog.onOutput,
  });
  const { key } = await createApiKey(stack.api.url, devAccount(4), "bench");
  const sql = postgres(stack.postgres.databaseUrl, { max: 2, onnotice: () => {} });
  cleanup.add("postgres client", () => sql.end());
  console.log(
    `Stack ready after ${fixed((performance.now() - startedAt) / 1000)} s: anvil, Postgres, NATS, API.`,
  );

  const loadBefore = loadavg();
  const floor = await measureJetStreamPublish(stack.nats.natsUrl, {
    publishes: FLOOR_PUBLISHES,
    warmUp: FLOOR_WARM_UP,
    inFlight: SUBMIT_CONCURRENCY,
  });
  console.log(
    `  floor: JetStream publish-and-ack p50 ${fixed(percentile(floor.sequentialMs, 50), 3)} ms, ${fixed(floor.sequentialPerSecond, 0)}/s sequential, ${fixed(floor.concurrentPerSecond, 0)}/s at ${SUBMIT_CONCURRENCY} in flight`,
  );
  const validationMs = measureValidation();

  /** Submits `count` registrations and waits until none of them is queued. */
  const runBatch = async (label: string, count: number, workerCount: number): Promise<Batch> => {
    const cpuBefore: CpuReading = readCpu(classifyService);
    const cpuFrom = performance.now();
    const sampler = samplePgActivity(stack.postgres.databaseUrl);
    const jobIds: string[] = [];
    const submitting = submitRegistrations({
      apiUrl: stack.api.url,
      key,
      label,
      count,
      onAccepted: (jobId) => jobIds.push(jobId),
    });
    // Completions, polled from Postgres while the submissions are still going. autocannon settles at
    // its next one-second tick, so the answers tell when all were accepted; a refusal fails at once.
    const refused = submitting.then(() => new Promise<never>(() => {}));
    for (;;) {
      await Promise.race([refused, sleep(POLL_MS)]);
      const [row] = await sql<{ done: number }[]>`
        select count(*)::int as done from app.jobs where id = any(${jobIds}) and status <> 'queued'`;
      const done = row?.done ?? 0;
      if (jobIds.length === count && done === count) break;
      if (performance.now() - cpuFrom > BATCH_TIMEOUT_MS) {
        throw new Error(`${label}: ${done} of ${count} jobs done after ${BATCH_TIMEOUT_MS} ms`);
      }
    }
    const { submitMs, firstSent, lastAnswer } = await submitting;
    const allDone = performance.now();
    const activity = await sampler.stop();
    const spent = cpuSpent(cpuBefore, readCpu(classifyService));
    const wallSeconds = (performance.now() - cpuFrom) / 1000;

    const rows = await sql<
      {
        id: string;
        status: string;
        error: unknown;
        created: number;
        published: number | null;
        updated: number;
      }[]
    >`
      select id, status, error,
        extract(epoch from created_at) * 1000 as created,
        extract(epoch from published_at) * 1000 as published,
        extract(epoch from updated_at) * 1000 as updated
      from app.jobs where id = any(${jobIds})`;
    const failed = rows.filter((row) => row.status !== "completed");
    if (failed.length > 0) {
      throw new Error(
        `${label}: ${failed.length} jobs not completed, e.g. ${JSON.stringify(failed[0])}`,
      );
    }
    const created = rows.map((row) => Number(row.created));
    const updated = rows.map((row) => Number(row.updated));
    const serverSeconds = (Math.max(...updated) - Math.min(...created)) / 1000;
    const published = rows.filter((row) => row.published !== null);
    return {
      workers: workerCount,
      submitMs,
      serverSeconds,
      serverPerSecond: count / serverSeconds,
      clientPerSecond: count / ((allDone - firstSent) / 1000),
      submitPerSecond: count / ((lastAnswer - firstSent) / 1000),
      queueMs: rows.map((row) => Number(row.updated) - Number(row.created)),
      createdToPublishedMs: published.map((row) => Number(row.published) - Number(row.created)),
      publishedToCompletedMs: published.map((row) => Number(row.updated) - Number(row.published)),
      cores: new Map([...spent].map(([group, seconds]) => [group, seconds / wallSeconds])),
      spent,
      activity,
    };
  };

  const batches: Batch[] = [];
  let workers = 0;
  for (const count of WORKER_COUNTS) {
    for (; workers < count; workers++) await stack.addWorker();
    await runBatch(`warm${count}`, WARM_UP_JOBS, count);
    const batch = await runBatch(`w${count}`, JOBS, count);
    batches.push(batch);
    const [p50, , p99] = tail(batch.queueMs);
    console.log(
      `  ${count} worker(s): ${fixed(batch.serverPerSecond)} jobs/s, queue latency p50 ${fixed(p50)} ms, p99 ${fixed(p99)} ms`,
    );
  }
  const loadAfter = loadavg();
  // The relay's sweep runs every second: give it one more before reading its log.
  await sleep(1_200);
  report({
    floor,
    batches,
    validationMs,
    loadBefore,
    loadAfter,
    log: serverLog.counts,
    relayedJobs: serverLog.sums.get(LOG.relayed) ?? 0,
  });
});

/**
 * POSTs `count` valid registrations, named `${label}-agent-N`, from autocannon's keep-alive
 * connections, SUBMIT_CONCURRENCY requests in flight; every one must be accepted (202).
 */
async function submitRegistrations({
  apiUrl,
  key,
  label,
  count,
  onAccepted,
}: {
  apiUrl: string;
  key: string;
  label: string;
  count: number;
  onAccepted: (jobId: string) => void;
}): Promise<Submissions> {
  let accepted = 0;
  const submitMs: number[] = [];
  const refused: string[] = [];
  let next = 0;
  let lastAnswer = 0;
  const firstSent = performance.now();
  const instance = autocannon({
    url: `${apiUrl}/v1/agents`,
    connections: Math.min(SUBMIT_CONCURRENCY, count),
    amount: count,
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify(registration(`${label}-agent-${next++}`)),
        }),
        onResponse: (status, body) => {
          const jobId =
            status === 202 ? (JSON.parse(body) as { job_id?: string }).job_id : undefined;
          if (jobId) {
            accepted++;
            onAccepted(jobId);
          } else refused.push(`${status} ${body}`);
        },
      },
    ],
  });
  instance.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) => {
    submitMs.push(ms);
    lastAnswer = performance.now();
  });
  const result = await instance;
  if (refused.length > 0 || result.errors > 0 || accepted !== count) {
    throw new Error(
      `POST /v1/agents: ${accepted} of ${count} accepted, ${result.errors} errors${refused[0] ? `, e.g. ${refused[0]}` : ""}`,
    );
  }
  return { submitMs, firstSent, lastAnswer };
}

/** CPU cost of the worker's manifest validation alone (Ajv compiles both schemas), in this process. */
function measureValidation(): number[] {
  const samples: number[] = [];
  for (let i = 0; i < VALIDATION_SAMPLES + 20; i++) {
    const { vendor_credentials: _, ...manifest } = registration(`validation-${i}`);
    const started = performance.now();
    const result = validateManifest(manifest);
    if (i >= 20) samples.push(performance.now() - started);
    if (!result.ok) throw new Error(`invalid bench manifest: ${JSON.stringify(result.violations)}`);
  }
  return samples;
}

function report(options: {
  floor: JetStreamFloor;
  batches: Batch[];
  validationMs: number[];
  loadBefore: number[];
  loadAfter: number[];
  log: Map<string, number>;
  relayedJobs: number;
}) {
  const { floor, batches } = options;
  const stats = (values: number[]) => [
    ...tail(values).map((value) => fixed(value, 2)),
    fixed(Math.max(...values), 2),
  ];
  const floorPerSecond = floor.sequentialPerSecond;
  console.log(
    `\nRegistration: ${JOBS} valid registrations per batch, POSTed ${SUBMIT_CONCURRENCY} at a time with one API key, through the API (its own process) and NATS JetStream to WORKER_CONCURRENCY=4 worker processes; ${WARM_UP_JOBS} untimed jobs before each batch.\n`,
  );
  console.log(
    table(
      ["throughput", "per second", "÷ floor (sequential publish)"],
      [
        ["floor: JetStream publish + ack, sequential", fixed(floor.sequentialPerSecond, 0), "1"],
        [
          `floor: JetStream publish + ack, ${SUBMIT_CONCURRENCY} in flight`,
          fixed(floor.concurrentPerSecond, 0),
          fixed(floor.concurrentPerSecond / floorPerSecond, 2),
        ],
        ...batches.flatMap((batch) => [
          [
            `${batch.workers} worker(s): jobs, first submit → last completed (server clocks)`,
            fixed(batch.serverPerSecond, 1),
            fixed(batch.serverPerSecond / floorPerSecond, 3),
          ],
          [
            `${batch.workers} worker(s): jobs, as the benchmark saw it (${POLL_MS} ms polling)`,
            fixed(batch.clientPerSecond, 1),
            fixed(batch.clientPerSecond / floorPerSecond, 3),
          ],
          [
            `${batch.workers} worker(s): POST /v1/agents answered (202)`,
            fixed(batch.submitPerSecond, 1),
            fixed(batch.submitPerSecond / floorPerSecond, 3),
          ],
        ]),
      ],
    ),
  );
  const floorP50 = percentile(floor.sequentialMs, 50);
  console.log("\nLatency (ms):\n");
  console.log(
    table(
      ["latency", "p50", "p95", "p99", "max", "p50 ÷ floor p50"],
      [
        ["floor: JetStream publish + ack, sequential", ...stats(floor.sequentialMs), "1"],
        ...batches.flatMap((batch) => [
          [
            `${batch.workers} worker(s): queue latency, created → completed`,
            ...stats(batch.queueMs),
            fixed(percentile(batch.queueMs, 50) / floorP50, 0),
          ],
          [
            `${batch.workers} worker(s): created → published_at (API: insert, publish, update)`,
            ...stats(batch.createdToPublishedMs),
            fixed(percentile(batch.createdToPublishedMs, 50) / floorP50, 0),
          ],
          [
            `${batch.workers} worker(s): published_at → completed (queue wait + processing)`,
            ...stats(batch.publishedToCompletedMs),
            fixed(percentile(batch.publishedToCompletedMs, 50) / floorP50, 0),
          ],
          [
            `${batch.workers} worker(s): POST /v1/agents round trip (client)`,
            ...stats(batch.submitMs),
            fixed(percentile(batch.submitMs, 50) / floorP50, 0),
          ],
        ]),
        [
          "validateManifest alone, in the benchmark process",
          ...stats(options.validationMs),
          fixed(percentile(options.validationMs, 50) / floorP50, 0),
        ],
      ],
    ),
  );
  const groups = ["api", "worker", "postgres", "nats", "bench (load generator)", "anvil"];
  console.log(
    "\nCPU used during each batch (cores, of 2) by process, CPU milliseconds per job, and Postgres activity:\n",
  );
  const perJob = (batch: Batch, group: string) =>
    fixed((1000 * (batch.spent.get(group) ?? 0)) / JOBS, 2);
  console.log(
    table(
      [
        "batch",
        ...groups,
        "ms/job api",
        "ms/job worker",
        "ms/job postgres",
        "pg active",
        "pg lock waits",
        "top waits",
      ],
      batches.map((batch) => [
        `${batch.workers} worker(s)`,
        ...groups.map((group) => fixed(batch.cores.get(group) ?? 0, 2)),
        perJob(batch, "api"),
        perJob(batch, "worker"),
        perJob(batch, "postgres"),
        fixed(batch.activity.meanActive, 2),
        `${fixed(100 * batch.activity.lockShare, 0)}%`,
        batch.activity.topWaits,
      ]),
    ),
  );
  for (const batch of batches) {
    for (const [statement, count] of batch.activity.lockedStatements.slice(0, 3)) {
      console.log(
        `  ${batch.workers} worker(s), waiting on a lock in ${count} samples: ${statement}`,
      );
    }
  }
  const count = (needle: string) => options.log.get(needle) ?? 0;
  console.log(
    [
      "",
      `Worker log, all batches: ${count(LOG.completed)} completed, ${count(LOG.failed)} failed, ${count(LOG.alreadyDone)} already_done (duplicate deliveries), ${count(LOG.attemptFailed)} failed attempts.`,
      `API log: outbox relay sweeps that (re)published jobs ${count(LOG.relayed)}, ${options.relayedJobs} jobs in all; publishes that failed in the request ${count(LOG.notOnBus)}.`,
      loadAverageLine(options.loadBefore, options.loadAfter),
      reproduce("bench:registration", ["BENCH_JOBS", "BENCH_SUBMIT_CONCURRENCY"]),
    ].join("\n"),
  );
}
