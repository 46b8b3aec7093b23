// Runs as the API admits them (inserted `waiting`, then slots granted), agents to run them for, and
// reads of where they stand.
import { randomBytes } from "node:crypto";
import { inArray, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { saveAgent } from "../../lib/agents/saveAgent.ts";
import type { Bus } from "../../lib/bus/bus.ts";
import { type RunPriority, type RunRequest, runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { newRunId } from "../../lib/ids/randomIds.ts";
import { grantSlots } from "../../lib/runLedger/grantSlots.ts";
import { nextOnChainRunId } from "../../lib/runLedger/onChainRunId.ts";
import { until } from "./registration.ts";

/** A registered agent whose output must match `outputSchema`; returns its on-chain listing id. */
export async function registeredAgent(
  db: Database,
  outputSchema: object = { type: "string" },
): Promise<Hex> {
  const onChainListingId: Hex = `0x${randomBytes(32).toString("hex")}`;
  await saveAgent(db, {
    agentId: `scripted-${onChainListingId.slice(2, 10)}`,
    onChainListingId,
    creator: `0x${"c0".repeat(20)}`,
    publicManifest: {
      name: "scripted",
      category: "coding",
      description: "Does what its task says.",
      input_schema: { type: "object" },
      output_schema: outputSchema,
      timeout_seconds: 60,
    },
    metadataUri: "ipfs://scripted",
  });
  return onChainListingId;
}

export type Admission = {
  listing: string;
  task: string;
  timeoutSeconds?: number;
  priority?: RunPriority;
  /** `per_query` reserves the price (`charge` `reserved`); the others charge nothing per run. */
  rentalModel?: "one_time" | "subscription" | "per_query";
  /** Admitted this long ago (a run that has waited). */
  ageMs?: number;
  /** `queued`: granted a slot, its command never published (its process died in between). */
  status?: "waiting" | "queued";
};

/** Inserts runs `waiting` (unless `status` says otherwise), as the API admits them, in order; returns their ids. */
export async function insertWaitingRuns(db: Database, admissions: Admission[]): Promise<string[]> {
  const ids: string[] = [];
  for (const admission of admissions) {
    const id = newRunId();
    const perTask = admission.rentalModel === "per_query";
    const request: RunRequest = {
      task: admission.task,
      timeoutSeconds: admission.timeoutSeconds ?? 30,
    };
    await db.insert(runs).values({
      id,
      onChainRunId: nextOnChainRunId,
      wallet: `0x${"a1".repeat(20)}`,
      onChainListingId: admission.listing,
      rentalModel: admission.rentalModel ?? "subscription",
      priority: admission.priority ?? "standard",
      status: admission.status ?? "waiting",
      charge: perTask ? "reserved" : "none",
      reservedWei: perTask ? "1000" : "0",
      requestHash: randomBytes(32).toString("hex"),
      request,
      createdAt: sql`now() - ${admission.ageMs ?? 0}::int * interval '1 millisecond'`,
    });
    ids.push(id);
  }
  return ids;
}

/** What the API does on admission: insert the runs `waiting`, then grant their listings' slots. */
export async function admit(
  { db, bus }: { db: Database; bus: Bus },
  admissions: Admission[],
): Promise<string[]> {
  const ids = await insertWaitingRuns(db, admissions);
  for (const listing of new Set(admissions.map((admission) => admission.listing))) {
    await grantSlots({ db, bus }, listing);
  }
  return ids;
}

export type RunRow = typeof runs.$inferSelect;

export async function runRows(db: Database, ids: string[]): Promise<RunRow[]> {
  const rows = await db.select().from(runs).where(inArray(runs.id, ids));
  return ids.map((id) => rows.find((row) => row.id === id) as RunRow);
}

/** Waits until every one of `ids` has ended; returns their rows, in the order of `ids`. */
export function ended(db: Database, ids: string[], timeoutMs = 60_000): Promise<RunRow[]> {
  return until(
    `${ids.length} runs to end`,
    async () => {
      const rows = await runRows(db, ids);
      return rows.every((row) => row.status === "completed" || row.status === "failed")
        ? rows
        : undefined;
    },
    timeoutMs,
  );
}

/** Waits until `id` is in `status`. */
export function reached(db: Database, id: string, status: RunRow["status"], timeoutMs = 30_000) {
  return until(
    `run ${id} to be ${status}`,
    async () => {
      const [row] = await runRows(db, [id]);
      return row?.status === status ? row : undefined;
    },
    timeoutMs,
  );
}

/** A run of `wallet` on `listing` that completed, as its worker leaves it (nothing charged). */
export async function insertCompletedRun(
  db: Database,
  { wallet, listing }: { wallet: string; listing: string },
): Promise<string> {
  const id = newRunId();
  await db.insert(runs).values({
    id,
    onChainRunId: nextOnChainRunId,
    wallet: wallet.toLowerCase(),
    onChainListingId: listing.toLowerCase(),
    rentalModel: "one_time",
    priority: "standard",
    status: "completed",
    charge: "none",
    requestHash: randomBytes(32).toString("hex"),
    output: "done",
    startedAt: new Date(),
    finishedAt: new Date(),
  });
  return id;
}

export type PastRun = {
  wallet: string;
  listing: string;
  createdAt: Date;
  status: "completed" | "failed";
  task: string;
  output: string;
};

/** Runs that ended in the past as the ledger keeps them (nothing charged), in one insert; returns their ids. */
export async function insertPastRuns(db: Database, past: PastRun[]): Promise<string[]> {
  const rows = past.map((run) => ({
    id: newRunId(),
    onChainRunId: nextOnChainRunId,
    wallet: run.wallet.toLowerCase(),
    onChainListingId: run.listing.toLowerCase(),
    rentalModel: "per_query" as const,
    priority: "standard" as const,
    status: run.status,
    charge: "released" as const,
    requestHash: randomBytes(32).toString("hex"),
    request: { task: run.task, timeoutSeconds: 60 },
    output: run.output,
    ...(run.status === "failed" && { failure: "agent_error" }),
    durationMs: 1_000,
    // Already on-chain, as past runs are: settlement leaves them be.
    logged: true,
    createdAt: run.createdAt,
    startedAt: run.createdAt,
    finishedAt: new Date(run.createdAt.getTime() + 1_000),
  }));
  await db.insert(runs).values(rows);
  return rows.map((row) => row.id);
}
