import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";

/** The columns settlement reads of a run. */
export const runToSettle = {
  id: runs.id,
  onChainRunId: runs.onChainRunId,
  wallet: runs.wallet,
  onChainListingId: runs.onChainListingId,
  reservedWei: runs.reservedWei,
  status: runs.status,
  charge: runs.charge,
  debitSubmittedBlock: runs.debitSubmittedBlock,
  traceParent: runs.traceParent,
};

const ids = (rows: { id: string }[]) => rows.map(({ id }) => id);

export type Debit = { price: bigint; block: bigint; tx: Hex };

/** A run marked debited, and what it was charged. */
export type DebitedRun = { id: string; costWei: string };

/**
 * The chain debited these runs (by on-chain run id): each charged at its `price` in `block` by
 * `tx`, and logged with it; one statement for them all. The chain is the truth, so this also
 * corrects a run marked refused that a later transaction debited after all.
 */
export async function markDebited(db: Database, debits: Map<bigint, Debit>): Promise<DebitedRun[]> {
  if (debits.size === 0) return [];
  const entries = [...debits];
  const column = (value: (debit: Debit) => bigint | string) =>
    `{${entries.map(([, debit]) => value(debit)).join(",")}}`;
  const updated = await db.execute<{ id: string; cost_wei: string }>(sql`
    update ${runs} set charge = 'debited', cost_wei = d.price, debit_block = d.block,
      debit_tx = d.tx, logged = true
    from unnest(
      ${`{${entries.map(([runId]) => runId).join(",")}}`}::numeric[],
      ${column((debit) => debit.price)}::numeric[],
      ${column((debit) => debit.block)}::bigint[],
      ${column((debit) => debit.tx)}::text[]
    ) as d(run_id, price, block, tx)
    where ${runs.onChainRunId} = d.run_id and ${runs.charge} in ('debit_pending', 'refused')
    returning ${runs.id}, ${runs.costWei}`);
  return updated.map(({ id, cost_wei }) => ({ id, costWei: String(cost_wei) }));
}

/**
 * The contract refused the debit that `tx` carried (revoked, balance short, listing closed): nothing
 * is charged, and the run still awaits its log. Only for the submission this row is waiting on.
 */
export async function markRefused(db: Database, onChainRunId: bigint, tx: Hex): Promise<string[]> {
  const updated = await db
    .update(runs)
    .set({ charge: "refused", costWei: "0" })
    .where(
      and(
        eq(runs.onChainRunId, onChainRunId.toString()),
        eq(runs.charge, "debit_pending"),
        eq(runs.debitTx, tx),
      ),
    )
    .returning({ id: runs.id });
  return ids(updated);
}

/** The run id is settled on-chain without any debit of it: uncharged, counted by its anchor. */
export async function markSettledUncharged(db: Database, onChainRunId: bigint): Promise<string[]> {
  const updated = await db
    .update(runs)
    .set({ charge: "refused", costWei: "0" })
    .where(and(eq(runs.onChainRunId, onChainRunId.toString()), eq(runs.charge, "debit_pending")))
    .returning({ id: runs.id });
  return ids(updated);
}

/**
 * Sets these runs aside (by on-chain run id): still awaiting their debit, with their `debit_tx`, but no
 * longer reconciled, for an operator to decide. Their reservation stays held.
 */
export async function markQuarantined(
  db: Database,
  onChainRunIds: bigint[],
  reason: string,
): Promise<string[]> {
  if (onChainRunIds.length === 0) return [];
  const updated = await db
    .update(runs)
    .set({ quarantinedAt: new Date(), quarantineReason: reason })
    .where(
      and(
        inArray(runs.onChainRunId, onChainRunIds.map(String)),
        eq(runs.charge, "debit_pending"),
        isNull(runs.quarantinedAt),
      ),
    )
    .returning({ id: runs.id });
  return ids(updated);
}

/**
 * Records `tx` as carrying the debits of `runIds`, all or none (it is not sent yet): true when every
 * one still waited for its debit. `head` is the chain's latest block before `tx` was signed, kept from
 * a run's first submission on: where a search for its debit starts.
 */
export async function markSubmitted(
  db: Database,
  runIds: string[],
  tx: Hex,
  head: bigint,
): Promise<boolean> {
  const marked = await db
    .update(runs)
    .set({
      debitTx: tx,
      debitSubmittedBlock: sql`coalesce(${runs.debitSubmittedBlock}, ${head.toString()}::bigint)`,
    })
    .where(and(inArray(runs.id, runIds), eq(runs.charge, "debit_pending"), isNull(runs.debitTx)))
    .returning({ id: runs.id });
  if (marked.length === runIds.length) return true;
  await clearSubmission(db, tx);
  return false;
}

/** `tx` changed nothing on-chain (reverted, or never mined): its runs wait for the next batch. */
export async function clearSubmission(
  db: Database,
  tx: Hex,
  onChainRunIds?: bigint[],
): Promise<void> {
  await db
    .update(runs)
    .set({ debitTx: null })
    .where(
      and(
        eq(runs.debitTx, tx),
        eq(runs.charge, "debit_pending"),
        // A run set aside keeps its transaction, for the operator who decides it.
        isNull(runs.quarantinedAt),
        onChainRunIds ? inArray(runs.onChainRunId, onChainRunIds.map(String)) : undefined,
      ),
    );
}

/** Marks runs logged on-chain. */
export async function markLogged(db: Database, runIds: string[]): Promise<void> {
  await db
    .update(runs)
    .set({ logged: true })
    .where(and(inArray(runs.id, runIds), eq(runs.logged, false)));
}
