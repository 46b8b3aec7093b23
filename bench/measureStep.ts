// One step of the execution benchmark: open-loop POST /v1/execute at a rate, each request's start of
// execution found at the echo agent (by run id) and in its run row.
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { toApiListingId } from "../lib/ids/listingId.ts";
import type { BenchModel, ExecutionFixture } from "./executionFixture.ts";
import { type OpenLoadSample, runOpenLoad } from "./openLoad.ts";
import { type CpuReading, classifyService, cpuSpent, readCpu } from "./processCpu.ts";
import type { EchoAgent } from "./startEchoAgent.ts";

/** One request's times, in ms from when it was due. */
export type RunTimes = {
  /** The admission's transaction began (`runs.created_at`, Postgres's clock). */
  admitted: number;
  /** A worker took the run (`runs.started_at`). */
  taken: number;
  /** The echo agent received the webhook call (its headers). */
  received: number;
  /** The whole answer was in at the load generator (per task, after the debit). */
  answered: number;
};

export type Step = {
  model: BenchModel;
  rate: number;
  seconds: number;
  sent: number;
  /** Completed (per task: and debited), answered 200, and seen at the agent. */
  completed: RunTimes[];
  failures: Map<string, number>;
  /** How late the generator sent requests (sent − due), ms. */
  lagMs: number[];
  /** From the last request due to the last answer in, ms; NaN when none was answered. */
  drainMs: number;
  cores: Map<string, number>;
  /** CPU ms per request, by process group. */
  cpuMsPerRun: Map<string, number>;
  /** Postgres transactions per request, every process's (`pg_stat_database`). */
  transactionsPerRun: number;
  /** Postgres transactions per request of the processes that count their own, by group. */
  transactionsPerRunBy: Map<string, number>;
  /** The same by group and by the transaction's first statement. */
  transactionsByStatement: Map<string, Map<string, number>>;
  /** The machine's 1-minute load average as the step ended: how much else was running. */
  loadAverage: number;
};

const classify = (commandLine: string) =>
  commandLine.includes("echoAgent.ts") ? "echo agent" : (classifyService(commandLine) ?? "other");

export async function measureStep(options: {
  apiUrl: string;
  databaseUrl: string;
  /** Where the API and worker write their transaction counts (lib/db/transactionCount.ts). */
  transactionCountDir: string;
  fixture: ExecutionFixture;
  echo: EchoAgent;
  model: BenchModel;
  rate: number;
  seconds: number;
  /** An unmeasured load at the same rate first. */
  warmUpSeconds: number;
}): Promise<Step> {
  const { fixture, model, rate } = options;
  const agentId = toApiListingId(fixture.listings[model]);
  const requestOf = (index: number) => ({
    path: "/v1/execute",
    headers: {
      authorization: `Bearer ${fixture.keys[index % fixture.keys.length]}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ agent_id: agentId, task: `task ${index}`, input: { text: "hello" } }),
  });
  const load = (seconds: number) =>
    runOpenLoad({ origin: options.apiUrl, rate, seconds, requestOf });

  if (options.warmUpSeconds > 0) await load(options.warmUpSeconds);
  await options.echo.takeArrivals();

  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const transactions = async () => {
      const [row] = await sql<{ count: string }[]>`
        select sum(xact_commit + xact_rollback)::text as count from pg_stat_database`;
      return Number(row?.count ?? 0);
    };
    const countedBefore = await countedTransactions(options.transactionCountDir);
    const transactionsBefore = await transactions();
    const cpuBefore: CpuReading = readCpu(classify);
    const from = performance.now();
    const samples = await load(options.seconds);
    const wallSeconds = (performance.now() - from) / 1000;
    const spent = cpuSpent(cpuBefore, readCpu(classify));
    const countedAfter = await countedTransactions(options.transactionCountDir);
    const transactionsAfter = await transactions();
    const { byGroup, byStatement } = perGroup(countedBefore, countedAfter, samples.length);
    const counted = { transactionsPerRunBy: byGroup, transactionsByStatement: byStatement };
    const { arrivals } = await options.echo.takeArrivals();
    return {
      model,
      rate,
      seconds: options.seconds,
      sent: samples.length,
      ...(await timesOf(sql, samples, arrivals, model)),
      lagMs: samples.map((sample) => sample.sentAt - sample.dueAt),
      drainMs: drainOf(samples),
      cores: new Map([...spent].map(([group, seconds]) => [group, seconds / wallSeconds])),
      cpuMsPerRun: new Map(
        [...spent].map(([group, seconds]) => [group, (1000 * seconds) / samples.length]),
      ),
      transactionsPerRun: (transactionsAfter - transactionsBefore) / samples.length,
      ...counted,
      loadAverage: loadavg()[0] ?? 0,
    };
  } finally {
    await sql.end();
  }
}

type Counted = Map<number, Record<string, number>>;

/**
 * Each counting process's transactions so far by their first statement, by pid, after a pause that
 * lets the counts (written every 100 ms) and Postgres's own statistics (flushed by each backend
 * within about a second) catch up.
 */
async function countedTransactions(dir: string): Promise<Counted> {
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  return new Map(
    readdirSync(dir).map((pid) => [Number(pid), JSON.parse(readFileSync(join(dir, pid), "utf8"))]),
  );
}

/** Transactions per run by process group, and by group and first statement. */
function perGroup(before: Counted, after: Counted, runs: number) {
  const byStatement = new Map<string, Map<string, number>>();
  for (const [pid, counts] of after) {
    const group = classify(commandLineOf(pid));
    const statements = byStatement.get(group) ?? new Map<string, number>();
    byStatement.set(group, statements);
    for (const [name, count] of Object.entries(counts)) {
      const perRun = (count - (before.get(pid)?.[name] ?? 0)) / runs;
      if (perRun > 0) statements.set(name, (statements.get(name) ?? 0) + perRun);
    }
  }
  const byGroup = new Map(
    [...byStatement].map(([group, statements]) => [
      group,
      [...statements.values()].reduce((sum, perRun) => sum + perRun, 0),
    ]),
  );
  return { byGroup, byStatement };
}

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\u0000", " ");
  } catch {
    return "";
  }
}

/** From the last request due to the last answer in; NaN when none was answered. */
function drainOf(samples: OpenLoadSample[]): number {
  const answered = samples.flatMap((sample) => sample.answeredAt ?? []);
  if (answered.length === 0) return Number.NaN;
  return Math.max(...answered) - Math.max(...samples.map((sample) => sample.dueAt));
}

async function timesOf(
  sql: postgres.Sql,
  samples: OpenLoadSample[],
  arrivals: Map<string, number>,
  model: BenchModel,
): Promise<Pick<Step, "completed" | "failures">> {
  const failures = new Map<string, number>();
  const fail = (why: string) => failures.set(why, (failures.get(why) ?? 0) + 1);
  const answered = new Map<string, OpenLoadSample>();
  for (const sample of samples) {
    if (sample.status !== 200) {
      const code = sample.body ? /"code":"([a-z_]+)"/.exec(sample.body)?.[1] : undefined;
      fail(sample.error ?? `HTTP ${sample.status}${code ? ` ${code}` : ""}`);
      continue;
    }
    const body = JSON.parse(sample.body ?? "{}") as { run_id?: string; status?: string };
    if (body.status !== "completed" || !body.run_id) fail(`run ${body.status}`);
    else answered.set(body.run_id, sample);
  }
  const rows = await sql<{ id: string; created: string; started: string; charge: string }[]>`
    select id, extract(epoch from created_at) * 1000 as created,
      extract(epoch from started_at) * 1000 as started, charge
    from app.runs where id = any(${[...answered.keys()]})`;
  const completed: RunTimes[] = [];
  for (const row of rows) {
    const sample = answered.get(row.id) as OpenLoadSample;
    const received = arrivals.get(row.id);
    if (received === undefined) fail("completed but never seen at the agent");
    else if (model === "per-task" && row.charge !== "debited") fail(`charge ${row.charge}`);
    else {
      completed.push({
        admitted: Number(row.created) - sample.dueAt,
        taken: Number(row.started) - sample.dueAt,
        received: received - sample.dueAt,
        answered: (sample.answeredAt as number) - sample.dueAt,
      });
    }
  }
  return { completed, failures };
}
