// The request path's database handle against a real Postgres that stops answering (SIGSTOP): every
// call ends once the server has been silent for the bound, those waiting for a connection of a pool
// whose connections all hang included; once the server answers again the pool serves at once, holding
// no more connections than its size. A busy pool is not a silent server: calls queued behind others
// for far longer than the bound all get their turn. A slow statement is the server's own error and
// costs no connection, and neither do calls that all wait on a lock while the server answers. Rows
// read and written through it are the plain handle's.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { jobs } from "../../lib/db/appSchema.ts";
import { DatabaseDeadlineError, isDatabaseUnavailable } from "../../lib/db/databaseUnavailable.ts";
import { connectWithDeadlines, type Database } from "../../lib/db/projections.ts";
import { until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const LIMITS = {
  size: 3,
  silenceMs: 1_000,
  probeMs: 250,
  statementTimeoutMs: 500,
  idleInTransactionMs: 10_000,
  applicationName: "bounded pool test",
};
const stack = useStack({ chain: false, postgres: true });
let bounded: { db: Database; close: () => Promise<void> };

beforeAll(() => {
  bounded = connectWithDeadlines(stack().postgres.databaseUrl, "marketplace", LIMITS);
});
afterAll(async () => {
  await bounded?.close();
});

/** How long `call` took to fail, and with what. */
async function failure(call: () => Promise<unknown>) {
  const started = Date.now();
  const error = await call().then(
    () => undefined,
    (error: unknown) => error,
  );
  return { error, ms: Date.now() - started };
}

const select = () => bounded.db.execute(sql`select 1`);
const transaction = () => bounded.db.transaction((tx) => tx.execute(sql`select 1`));

async function connectionsOfThePool(): Promise<number> {
  const [row] = await stack().db.execute<{ count: number }>(sql`
    select count(*)::int as count from pg_stat_activity
    where application_name = ${LIMITS.applicationName}`);
  return row?.count ?? 0;
}

it("reads and writes rows exactly as the plain handle does", async () => {
  const row = {
    id: "job_bounded_pool_round_trip",
    wallet: "0xabc",
    kind: "registration" as const,
    status: "failed" as const,
    requestHash: "hash",
    request: Buffer.from([0, 1, 2, 255]),
    error: {
      code: "manifest_rejected" as const,
      message: "The manifest was rejected: name (pattern)",
      violations: [{ field: "name", rule: "pattern", message: "at 2024-01-01T00:00:00Z" }],
    },
    publishedAt: new Date("2024-05-06T07:08:09.123Z"),
  };
  await bounded.db.insert(jobs).values(row);
  const where = eq(jobs.id, row.id);
  const [throughBounded] = await bounded.db.select().from(jobs).where(where);
  const [throughPlain] = await stack().db.select().from(jobs).where(where);
  expect(throughBounded).toEqual(throughPlain);
  expect(throughBounded).toMatchObject(row);
});

it("ends a slow statement with the server's own error, keeping the connection", async () => {
  const slow = await failure(() => bounded.db.execute(sql`select pg_sleep(2)`));
  expect(isDatabaseUnavailable(slow.error)).toBe(true);
  expect(slow.error).not.toBeInstanceOf(DatabaseDeadlineError);
  expect(slow.ms).toBeLessThan(LIMITS.silenceMs);
  expect(await select()).toHaveLength(1);
});

it("gives every call its turn on a busy pool, however long the queue", async () => {
  // Ten rounds of the pool's connections, 0.25 s each: the last calls wait 2.5 times the bound.
  const started = Date.now();
  const rows = await Promise.all(
    [...Array(LIMITS.size * 10)].map(() => bounded.db.execute(sql`select pg_sleep(0.25)`)),
  );
  expect(rows.every((row) => row.length === 1)).toBe(true);
  expect(Date.now() - started).toBeGreaterThan(LIMITS.silenceMs * 2);
});

it("fails every call once the server has been silent for the bound, and serves once it answers", async () => {
  const sleep = () => bounded.db.execute(sql`select pg_sleep(0.3)`);
  const sleepInTransaction = () =>
    bounded.db.transaction((tx) => tx.execute(sql`select pg_sleep(0.3)`));
  // More calls than connections: the last ones wait for a connection that never comes back.
  const inFlight = [...Array(LIMITS.size + 3)].map((_, n) =>
    failure(n % 2 ? sleep : sleepInTransaction),
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  stack().postgres.kill("SIGSTOP");
  let frozen: { error: unknown; ms: number }[];
  let later: { error: unknown; ms: number };
  try {
    frozen = await Promise.all([
      ...inFlight,
      ...[...Array(LIMITS.size + 3)].map(() => failure(select)),
    ]);
    // Every connection it had hung and was replaced: a new call still ends by the deadline.
    later = await failure(transaction);
  } finally {
    stack().postgres.kill("SIGCONT");
  }

  for (const { error, ms } of [...frozen, later]) {
    expect(error).toBeInstanceOf(DatabaseDeadlineError);
    expect(ms).toBeLessThan(LIMITS.silenceMs + LIMITS.probeMs + 500);
  }
  const resumed = Date.now();
  expect(await transaction()).toHaveLength(1);
  expect(Date.now() - resumed).toBeLessThan(LIMITS.silenceMs);

  // The connections it gave up end once the server reads their goodbye.
  await until("the given-up connections to end", async () => {
    await Promise.all([...Array(LIMITS.size * 2)].map(select));
    return (await connectionsOfThePool()) <= LIMITS.size;
  });
});

it("waits with every connection on a lock another session holds past the bound, the server answering", async () => {
  const patient = connectWithDeadlines(stack().postgres.databaseUrl, "marketplace", {
    ...LIMITS,
    // The server's own bound past the lock's hold, so that only the pool could cut the waits short.
    statementTimeoutMs: LIMITS.silenceMs * 5,
    applicationName: "bounded pool lock wait",
  });
  const lock = sql`select pg_advisory_xact_lock(20260001)`;
  try {
    let held!: () => void;
    const taken = new Promise<void>((resolve) => {
      held = resolve;
    });
    const holder = stack().db.transaction(async (tx) => {
      await tx.execute(lock);
      held();
      // Held for twice the bound: no call of the pool is answered meanwhile, the probe is.
      await new Promise((resolve) => setTimeout(resolve, LIMITS.silenceMs * 2));
    });
    await taken;
    const waits = await Promise.all(
      [...Array(LIMITS.size + 2)].map(() =>
        failure(() => patient.db.transaction((tx) => tx.execute(lock))),
      ),
    );
    await holder;
    expect(waits.map(({ error }) => error)).toEqual(waits.map(() => undefined));
    expect(Math.min(...waits.map(({ ms }) => ms))).toBeGreaterThan(LIMITS.silenceMs);
  } finally {
    await patient.close();
  }
});

it("ends no process when it gives up a connection still in its first statements", async () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", record);
  // A fresh pool's first connection waits on the type catalogue, locked by another session: the
  // server answers the connection, then nothing more, as a stalling one would.
  const fresh = connectWithDeadlines(stack().postgres.databaseUrl, "marketplace", {
    ...LIMITS,
    // The server's own bound past the pool's: the pool gives the connection up, as a silent one's.
    statementTimeoutMs: LIMITS.silenceMs * 5,
    applicationName: "bounded pool first statements",
  });
  try {
    await stack().db.transaction(async (tx) => {
      await tx.execute(sql`lock table pg_catalog.pg_type in access exclusive mode`);
      const { error } = await failure(() => fresh.db.execute(sql`select 1`));
      expect(error).toBeInstanceOf(DatabaseDeadlineError);
      // The connection given up is ended now; whatever it left pending settles in these turns.
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    expect(unhandled).toEqual([]);
    expect(await fresh.db.execute(sql`select 1 as one`)).toEqual([{ one: 1 }]);
  } finally {
    process.off("unhandledRejection", record);
    await fresh.close();
  }
});
