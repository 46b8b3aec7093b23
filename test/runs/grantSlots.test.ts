// grantSlots: at most RUNS_IN_FLIGHT_PER_LISTING runs of a listing hold a slot, whoever grants them
// and however many grant at once; priority runs get slots first, then the oldest.
import { fileURLToPath } from "node:url";
import { and, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { spawnService } from "../../devStack/spawnService.ts";
import { createInProcessBus } from "../../lib/bus/inProcessBus.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { grantSlots, RUNS_IN_FLIGHT_PER_LISTING } from "../../lib/runLedger/grantSlots.ts";
import { until } from "../support/registration.ts";
import { insertWaitingRuns, registeredAgent, runRows } from "../support/runs.ts";
import { scripted } from "../support/scriptedAgent.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ chain: false });
const deps = () => ({ db: stack().db, bus: createInProcessBus() });

const grantingProcess = fileURLToPath(new URL("../support/grantSlotsProcess.ts", import.meta.url));

/** Runs grantSlotsProcess.ts for `listing`; resolves with what it granted and published. */
function grantFromAnotherProcess(listing: string) {
  return new Promise<{ granted: string[]; published: string[] }>((resolve, reject) => {
    let printed = "";
    const { child } = spawnService(process.execPath, [grantingProcess], {
      env: { ...process.env, DATABASE_URL: stack().postgres.databaseUrl, LISTING: listing },
      onOutput: (line) => {
        printed += line;
      },
    });
    // "close", not "exit": only then has everything it printed been read.
    child.once("close", (code) => {
      const result = printed.split("\n").find((line) => line.startsWith('{"granted"'));
      if (code === 0 && result) resolve(JSON.parse(result));
      else reject(new Error(`the granting process exited with ${code}: ${printed}`));
    });
  });
}

async function inFlight(listing: string): Promise<number> {
  const [row] = (await stack().db.execute(sql`
    select count(*)::int as n from app.runs
    where on_chain_listing_id = ${listing} and status in ('queued', 'running')`)) as unknown as {
    n: number;
  }[];
  return row?.n ?? 0;
}

describe("grantSlots", () => {
  it("grants exactly the free slots under concurrent calls from two processes, each run once", async () => {
    const listing = await registeredAgent(stack().db);
    const ids = await insertWaitingRuns(
      stack().db,
      Array.from({ length: 150 }, () => ({ listing, task: scripted({}) })),
    );
    const processes = [grantFromAnotherProcess(listing), grantFromAnotherProcess(listing)];

    // Meanwhile runs end, a few at a time, as workers would end them: slots free up and are
    // granted again. Never more than 20 hold one.
    const samples: number[] = [];
    await until(
      "every run to be granted and ended",
      async () => {
        samples.push(await inFlight(listing));
        await stack().db.execute(sql`
          update app.runs set status = 'completed'
          where id in (select id from app.runs where on_chain_listing_id = ${listing}
            and status = 'queued' order by random() limit ${1 + Math.floor(Math.random() * 3)})`);
        const rows = await runRows(stack().db, ids);
        return rows.every((row) => row.status === "completed");
      },
      90_000,
    );
    const [first, second] = await Promise.all(processes);

    expect(Math.max(...samples)).toBe(RUNS_IN_FLIGHT_PER_LISTING);
    expect(samples.filter((n) => n > RUNS_IN_FLIGHT_PER_LISTING)).toEqual([]);
    const granted = [...(first?.granted ?? []), ...(second?.granted ?? [])];
    expect(granted.sort()).toEqual([...ids].sort());
    expect(first?.granted.length).toBeGreaterThan(0);
    expect(second?.granted.length).toBeGreaterThan(0);
    expect([...(first?.published ?? []), ...(second?.published ?? [])].sort()).toEqual(granted);
  });

  it("grants priority runs first, then the longest waiting, up to the free slots", async () => {
    const listing = await registeredAgent(stack().db);
    const [oldStandard, newStandard, oldPriority, newPriority] = await insertWaitingRuns(
      stack().db,
      [
        { listing, task: scripted({}), ageMs: 4_000 },
        { listing, task: scripted({}), ageMs: 1_000 },
        { listing, task: scripted({}), ageMs: 3_000, priority: "priority" },
        { listing, task: scripted({}), ageMs: 2_000, priority: "priority" },
      ],
    );
    expect(await grantSlots(deps(), listing, 3)).toEqual([oldPriority, newPriority, oldStandard]);
    expect(await grantSlots(deps(), listing, 3)).toEqual([]);
    await stack()
      .db.update(runs)
      .set({ status: "completed" })
      .where(eq(runs.id, oldPriority as string));
    expect(await grantSlots(deps(), listing, 3)).toEqual([newStandard]);
  });

  it("counts running runs as holding their slots", async () => {
    const listing = await registeredAgent(stack().db);
    const ids = await insertWaitingRuns(
      stack().db,
      Array.from({ length: 22 }, () => ({ listing, task: scripted({}) })),
    );
    expect(await grantSlots(deps(), listing)).toHaveLength(20);
    await stack()
      .db.update(runs)
      .set({ status: "running" })
      .where(and(inArray(runs.id, ids), eq(runs.status, "queued")));
    expect(await grantSlots(deps(), listing)).toEqual([]);
  });

  it("leaves a run refused while it was being granted refused", async () => {
    const listing = await registeredAgent(stack().db);
    const [id] = await insertWaitingRuns(stack().db, [{ listing, task: scripted({}) }]);
    // The sweeper refuses the run, holding its row, while grantSlots has just chosen it.
    let refuse = () => {};
    const refusing = new Promise<void>((resolve) => {
      refuse = resolve;
    });
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const sweeper = stack().db.transaction(async (tx) => {
      await tx.execute(sql`select id from app.runs where id = ${id} for update`);
      locked();
      await refusing;
      await tx
        .update(runs)
        .set({ status: "failed", charge: "released" })
        .where(eq(runs.id, id as string));
    });
    await isLocked;
    const granting = grantSlots(deps(), listing);
    await until("grantSlots to wait on the run's row", async () => {
      const [row] = (await stack().db.execute(sql`
        select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and query ilike '%update "app"."runs" set "status"%'`)) as unknown as {
        n: number;
      }[];
      return (row?.n ?? 0) > 0;
    });
    refuse();
    await sweeper;
    expect(await granting).toEqual([]);
    expect((await runRows(stack().db, [id as string]))[0]?.status).toBe("failed");
  });
});
