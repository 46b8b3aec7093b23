// Two worker processes with scripted agents sharing the runs of JetStream: the per-listing limit
// holds across them, and a NATS restart under load neither loses a run nor runs one twice.
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Bus } from "../../lib/bus/bus.ts";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { RUNS_IN_FLIGHT_PER_LISTING } from "../../lib/runLedger/grantSlots.ts";
import { captureOutput } from "../support/processOutput.ts";
import { until } from "../support/registration.ts";
import { untilRunCommandsSettledOnNats } from "../support/runCommandsSettled.ts";
import { admit, ended, type RunRow, registeredAgent, runRows } from "../support/runs.ts";
import { scripted } from "../support/scriptedAgent.ts";
import { addScriptedWorker, agentCalls, callingProcesses } from "../support/scriptedWorkers.ts";
import { useStack } from "../support/useStack.ts";

const output = captureOutput();
const stack = useStack({
  chain: false,
  nats: true,
  env: { RUN_LEASE_MS: "3000", RUN_WORKER_CONCURRENCY: "16" },
  onOutput: output.onOutput,
});

let bus: Bus;
beforeAll(async () => {
  await Promise.all([addScriptedWorker(stack()), addScriptedWorker(stack())]);
  bus = await createJetStreamBus(stack().nats.natsUrl);
});
afterAll(async () => {
  await bus?.close();
});

/** Runs of `listing` holding a slot, and those running, right now. */
async function slotsHeld(listing: string) {
  const [row] = await stack()
    .db.select({
      held: sql<number>`count(*)::int`,
      running: sql<number>`(count(*) filter (where ${runs.status} = 'running'))::int`,
    })
    .from(runs)
    .where(and(eq(runs.onChainListingId, listing), inArray(runs.status, ["queued", "running"])));
  return { held: row?.held ?? 0, running: row?.running ?? 0 };
}

/** The most runs whose [started, finished] intervals overlap at one instant. */
function mostAtOnce(rows: RunRow[]): number {
  const events = rows.flatMap((run) => [
    { at: run.startedAt?.getTime() ?? 0, change: 1 },
    { at: run.finishedAt?.getTime() ?? 0, change: -1 },
  ]);
  // An end before a start at the same instant: the slot was freed first.
  events.sort((a, b) => a.at - b.at || a.change - b.change);
  let now = 0;
  let most = 0;
  for (const { change } of events) {
    now += change;
    most = Math.max(most, now);
  }
  return most;
}

it("runs at most 20 runs of a listing at once across two worker processes; the 21st starts when one ends", async () => {
  const listing = await registeredAgent(stack().db);
  const ids = await admit(
    { db: stack().db, bus },
    Array.from({ length: 21 }, () => ({ listing, task: scripted({ sleepMs: 2_500 }) })),
  );
  const samples: { held: number; running: number }[] = [];
  const rows = await until(
    "21 runs to end",
    async () => {
      samples.push(await slotsHeld(listing));
      const current = await runRows(stack().db, ids);
      return current.every((run) => run.finishedAt !== null) && current;
    },
    60_000,
  );

  expect(rows.map((run) => run.status)).toEqual(Array(21).fill("completed"));
  expect(Math.max(...samples.map((sample) => sample.held))).toBe(RUNS_IN_FLIGHT_PER_LISTING);
  expect(Math.max(...samples.map((sample) => sample.running))).toBe(RUNS_IN_FLIGHT_PER_LISTING);
  expect(mostAtOnce(rows)).toBe(RUNS_IN_FLIGHT_PER_LISTING);
  const [last, ...others] = [...rows].sort(
    (a, b) => (b.startedAt?.getTime() ?? 0) - (a.startedAt?.getTime() ?? 0),
  );
  const firstEnd = Math.min(...others.map((run) => run.finishedAt?.getTime() ?? Infinity));
  expect(last?.startedAt?.getTime()).toBeGreaterThanOrEqual(firstEnd);
  // No command can be delivered again after this: any second call of a run has been made.
  await untilRunCommandsSettledOnNats(stack().nats.natsUrl);
  // Log lines are written asynchronously: they may follow the rows by a few milliseconds.
  const calls = await until("every run's agent call logged", () => {
    const logged = agentCalls(output.entries());
    return ids.every((id) => logged.has(id)) && logged;
  });
  expect(ids.map((id) => calls.get(id))).toEqual(Array(21).fill(1));
  expect(callingProcesses(output.entries()).size).toBe(2);
});

it("ends every run exactly once when NATS restarts under load", async () => {
  const listings = [await registeredAgent(stack().db), await registeredAgent(stack().db)];
  const ids = await admit(
    { db: stack().db, bus },
    Array.from({ length: 80 }, (_, n) => ({
      listing: listings[n % 2] as string,
      task: scripted({ deltas: ["a", "b"], sleepMs: 300 + ((n * 137) % 1_200) }),
      rentalModel: "per_query" as const,
    })),
  );
  await until("some runs to have ended", async () => {
    const [row] = await stack()
      .db.select({ n: sql<number>`count(*)::int` })
      .from(runs)
      .where(and(inArray(runs.id, ids), eq(runs.status, "completed")));
    return (row?.n ?? 0) >= 10;
  });
  await stack().nats.stopServer();
  const outageStarted = new Date();
  let atOutage: RunRow[];
  try {
    atOutage = await runRows(stack().db, ids);
    // The outage's length is what is tested: runs in hand go on ending while NATS stays down.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  } finally {
    await stack().nats.startServer();
  }
  const outageEnded = new Date();

  const rows = await ended(stack().db, ids, 90_000);
  // Mid-load: runs were waiting for slots when NATS went, and some of those started after it came back.
  expect(atOutage.filter((run) => run.status === "waiting").length).toBeGreaterThan(0);
  expect(rows.filter((run) => (run.startedAt as Date) > outageEnded).length).toBeGreaterThan(0);
  expect(rows.filter((run) => (run.finishedAt as Date) > outageStarted).length).toBeGreaterThan(40);
  expect(rows.map(({ status, charge }) => ({ status, charge }))).toEqual(
    Array(80).fill({ status: "completed", charge: "debit_pending" }),
  );
  await untilRunCommandsSettledOnNats(stack().nats.natsUrl);
  // Log lines are written asynchronously: they may follow the rows by a few milliseconds.
  const { calls, endings } = await until("every run's log lines", () => {
    const entries = output.entries();
    const logged = {
      calls: agentCalls(entries),
      endings: entries.filter(
        (entry) => entry.message === "run ended" && ids.includes(entry.run_id as string),
      ),
    };
    return logged.endings.length >= 80 && ids.every((id) => logged.calls.has(id)) && logged;
  });
  expect(ids.map((id) => calls.get(id))).toEqual(Array(80).fill(1));
  expect(endings.map((entry) => entry.status)).toEqual(Array(80).fill("completed"));
  expect(new Set(endings.map((entry) => entry.run_id)).size).toBe(80);
});
