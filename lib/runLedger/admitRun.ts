import { and, eq, gt, inArray, or, sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { RunRow } from "../db/appSchema.ts";
import { type RunPriority, type RunRequest, runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import type { RentalModel } from "../marketplace/vocabulary.ts";
import { requestFacts } from "../receipts/runReceipt.ts";
import { currentTraceParent } from "../tracing/spans.ts";
import { queueWaitingRuns } from "./grantSlots.ts";
import { nextOnChainRunId } from "./onChainRunId.ts";
import { type BalanceRead, type DebitsInBalance, perTaskRoom } from "./perTaskRoom.ts";
import type { RunToPublish } from "./publishRun.ts";
import { refusedBeforeStart } from "./runNotStarted.ts";

export type RunToAdmit = {
  id: string;
  wallet: Address;
  onChainListingId: Hex;
  rentalModel: RentalModel;
  priority: RunPriority;
  request: RunRequest;
  requestHash: string;
  idempotencyKey: string | undefined;
  /** The API key it comes with, if any. */
  apiKeyId: string | undefined;
};

/** A per-task run's terms: the balance read, and the daily cap of the API key it comes with. */
export type PerTaskAdmission = BalanceRead & { dailyCapWei: bigint | null };

export type Admission =
  /** Inserted; `granted` are the runs (this one, if a slot was free) queued in the same transaction. */
  | { outcome: "admitted"; granted: RunToPublish[] }
  /** The Idempotency-Key already names a run: this one, when the request is the same. */
  | { outcome: "existing"; run: RunRow }
  | { outcome: "idempotency_conflict" }
  | { outcome: "insufficient_balance" }
  /** The API key's spend today (UTC) and this run's price would pass its daily cap. */
  | { outcome: "spend_cap_exceeded" }
  /** Whether these debit transactions are in the balance read decides: look them up, admit again. */
  | { outcome: "debits_unknown"; transactions: string[] }
  /** Short, unless debits in flight (`inFlight` runs) charge less: read the chain once they settle. */
  | { outcome: "debits_in_flight"; inFlight: string[] };

/**
 * The run under `wallet` and `key`, or undefined. A run refused before it started (no slot freed, or
 * the workers not reached) gives its key up: it was never served, so a retry under the same key is a new run.
 */
export async function findIdempotentRun(
  db: Database,
  wallet: Address,
  key: string,
): Promise<RunRow | undefined> {
  const where = and(eq(runs.wallet, wallet.toLowerCase()), eq(runs.idempotencyKey, key));
  const [run] = await db.select().from(runs).where(where);
  if (run?.status !== "failed" || !refusedBeforeStart(run.failure)) return run;
  await db.update(runs).set({ idempotencyKey: null }).where(eq(runs.id, run.id));
  return undefined;
}

/**
 * Admits a run in one transaction under an advisory lock on (listing, wallet), so concurrent
 * admissions of one credential are counted one after the other. Per task, the balance read at
 * `blockNumber`, less what this credential's runs still reserved or being debited (or debited after
 * that block, which the balance read does not show yet) will take from it, must cover `price`
 * (`perTaskRoom`; `inBalance`: the debit transactions already looked up against that block). The
 * run is inserted `waiting`, holding `price` per task, and the listing's free slots are granted in
 * the same transaction (announcing them is the caller's, once it has committed).
 */
export async function admitRun(
  db: Database,
  run: RunToAdmit,
  perTask: PerTaskAdmission | undefined,
  inBalance: DebitsInBalance = new Map(),
): Promise<Admission> {
  const wallet = run.wallet.toLowerCase();
  const cap = perTask?.dailyCapWei ?? null;
  return db.transaction(async (tx) => {
    // The key's lock before the credential's: every admission takes them in this order.
    if (cap !== null && run.apiKeyId !== undefined) {
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`spend:${run.apiKeyId}`}, 0))`,
      );
    }
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`admit:${run.onChainListingId}:${wallet}`}, 0))`,
    );
    if (run.idempotencyKey !== undefined) {
      const existing = await findIdempotentRun(tx, run.wallet, run.idempotencyKey);
      if (existing) return sameRequest(existing, run.requestHash);
    }
    if (perTask && cap !== null && run.apiKeyId !== undefined) {
      const spent = await spentToday(tx, run.apiKeyId);
      if (spent + perTask.price > cap) return { outcome: "spend_cap_exceeded" };
    }
    if (perTask) {
      const holding = await tx
        .select({
          charge: runs.charge,
          debitTx: runs.debitTx,
          // Only runs being debited may be waited for: no list of every reservation.
          // JSON, not a Postgres array: the request path's connections parse no array types.
          runIds: sql<
            string[]
          >`coalesce(json_agg(${runs.id}) filter (where ${runs.charge} = 'debit_pending'), '[]')`,
          reservedWei: sql<string>`sum(${runs.reservedWei})::text`,
          atPriceWei: sql<string>`sum(least(${runs.reservedWei}, ${perTask.price.toString()}::numeric))::text`,
          costWei: sql<string>`sum(${runs.costWei})::text`,
        })
        .from(runs)
        .where(
          and(
            eq(runs.onChainListingId, run.onChainListingId),
            eq(runs.wallet, wallet),
            or(
              inArray(runs.charge, ["reserved", "debit_pending"]),
              and(eq(runs.charge, "debited"), gt(runs.debitBlock, perTask.blockNumber)),
            ),
          ),
        )
        .groupBy(runs.charge, runs.debitTx);
      const room = perTaskRoom(
        perTask,
        holding.map((runs) => ({
          ...runs,
          reservedWei: BigInt(runs.reservedWei),
          atPriceWei: BigInt(runs.atPriceWei),
          costWei: BigInt(runs.costWei),
        })),
        inBalance,
      );
      switch (room.verdict) {
        case "short":
          return { outcome: "insufficient_balance" };
        case "debits_unknown":
          return { outcome: "debits_unknown", transactions: room.transactions };
        case "debits_in_flight":
          return { outcome: "debits_in_flight", inFlight: room.inFlight };
      }
    }
    const inserted = await tx
      .insert(runs)
      .values({
        id: run.id,
        onChainRunId: nextOnChainRunId,
        wallet,
        onChainListingId: run.onChainListingId,
        rentalModel: run.rentalModel,
        priority: run.priority,
        status: "waiting",
        charge: perTask ? "reserved" : "none",
        reservedWei: (perTask?.price ?? 0n).toString(),
        idempotencyKey: run.idempotencyKey,
        apiKeyId: run.apiKeyId,
        requestHash: run.requestHash,
        request: run.request,
        receiptFacts: requestFacts(run.request),
        traceParent: currentTraceParent(),
      })
      .onConflictDoNothing({ target: [runs.wallet, runs.idempotencyKey] })
      .returning({ id: runs.id });
    if (inserted.length > 0 || run.idempotencyKey === undefined) {
      return { outcome: "admitted", granted: await queueWaitingRuns(tx, run.onChainListingId) };
    }
    // Another listing's admission took the key meanwhile (this lock does not cover it).
    const existing = await findIdempotentRun(tx, run.wallet, run.idempotencyKey);
    return existing ? sameRequest(existing, run.requestHash) : { outcome: "idempotency_conflict" };
  });
}

/**
 * What the API key's runs admitted since UTC midnight cost or still hold: a debited run its debit,
 * a run reserved or being debited its reservation; a released or refused one nothing.
 */
async function spentToday(tx: Pick<Database, "execute">, apiKeyId: string): Promise<bigint> {
  const [row] = await tx.execute<{ spent: string }>(sql`
    select coalesce(sum(case
        when ${runs.charge} = 'debited' then ${runs.costWei}
        when ${runs.charge} in ('reserved', 'debit_pending') then ${runs.reservedWei}
        else 0 end), 0)::text as spent
    from ${runs}
    where ${runs.apiKeyId} = ${apiKeyId}
      and ${runs.createdAt} >= date_trunc('day', now() at time zone 'utc') at time zone 'utc'`);
  return BigInt(row?.spent ?? "0");
}

function sameRequest(existing: RunRow, requestHash: string): Admission {
  return existing.requestHash === requestHash
    ? { outcome: "existing", run: existing }
    : { outcome: "idempotency_conflict" };
}
