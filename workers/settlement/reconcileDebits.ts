import { and, eq, isNotNull, isNull } from "drizzle-orm";
import {
  type Hex,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import { runs } from "../../lib/db/appSchema.ts";
import { announceDebited } from "../../lib/runLedger/announce.ts";
import { clearSubmission, runToSettle } from "../../lib/runLedger/markRuns.ts";
import { describeFailure } from "./describeFailure.ts";
import { quarantineRuns } from "./quarantineRuns.ts";
import { recordedOnChain } from "./recordedOnChain.ts";
import { settleConfirmedReceipt } from "./settleConfirmedReceipt.ts";
import type { SettlementContext } from "./settlementContext.ts";
import { settleRecordedRuns } from "./settleRecordedRuns.ts";

/**
 * Settles runs whose debit was submitted but never read back (the leader died, the chain went away,
 * the receipt never came, or it awaits its confirmations), before any of them is sent again: by the
 * transaction's receipt, once confirmed; by waiting while the chain still holds it pending; else
 * (never sent, dropped, or removed by a reorg) by what the contract holds of their run ids, and only
 * the runs it never settled are released for a new batch. The contract
 * refuses a replayed run id, so even a wrong guess here could not charge twice.
 *
 * Settling a submission by its receipt, or as lost, can fail where the node will not search its logs
 * (`findDebits`). Such a submission holds up nothing else: it is tried again each round, and set aside
 * (`quarantineRuns`) once it has failed for `reconcilePatienceMs` while the chain answered. A failure
 * to read the receipt, or the chain not answering at all, is the loop's, which waits for the chain.
 */
export async function reconcileDebits(context: SettlementContext): Promise<number> {
  const submitted = await context.db
    .selectDistinct({ tx: runs.debitTx })
    .from(runs)
    .where(
      and(eq(runs.charge, "debit_pending"), isNotNull(runs.debitTx), isNull(runs.quarantinedAt)),
    );
  for (const { tx } of submitted) {
    if (tx !== null) await reconcileSubmission(context, tx as Hex);
  }
  return submitted.length;
}

async function reconcileSubmission(context: SettlementContext, hash: Hex): Promise<void> {
  const receipt = (await receiptIfMined(context, hash)) ?? (await receiptOnceMined(context, hash));
  try {
    if (receipt) await settleConfirmedReceipt(context, receipt, hash);
    else await settleLostSubmission(context, hash);
    context.unreconciledSince.delete(hash);
  } catch (error) {
    await failedToReconcile(context, hash, error);
  }
}

/**
 * A submission the chain does not know (never mined, dropped, or removed by a reorg): a run whose id
 * the contract holds as settled, as of the last confirmed block, was debited by another transaction
 * (found by its logs) or is set aside; the rest go again. Logs are read only for runs the contract
 * holds, so a submission that was never mined reads none.
 */
async function settleLostSubmission(context: SettlementContext, tx: Hex): Promise<void> {
  const { db, chain, log } = context;
  const lost = await db
    .select(runToSettle)
    .from(runs)
    .where(and(eq(runs.debitTx, tx), eq(runs.charge, "debit_pending"), isNull(runs.quarantinedAt)));
  // The last confirmed block, never before the deployment's.
  let head = (await chain.client.getBlockNumber()) - context.confirmations;
  if (head < chain.startBlock) head = chain.startBlock;
  const recorded = await recordedOnChain(
    chain,
    lost.map(({ onChainRunId }) => BigInt(onChainRunId)),
    head,
  );
  const settledBefore = lost.filter(({ onChainRunId }) => recorded.has(BigInt(onChainRunId)));
  const debited = await settleRecordedRuns(context, settledBefore, head);
  await clearSubmission(db, tx);
  announceDebited(context.bus, debited);
  log.warn("a debit batch was never mined; its undebited runs go into the next batch", {
    tx,
    debited_elsewhere: debited.length,
    to_send_again: lost.length - settledBefore.length,
  });
}

async function failedToReconcile(
  context: SettlementContext,
  tx: Hex,
  error: unknown,
): Promise<void> {
  if (!(await chainAnswers(context))) throw error;
  const since = context.unreconciledSince.get(tx) ?? Date.now();
  context.unreconciledSince.set(tx, since);
  const failingForMs = Date.now() - since;
  if (failingForMs < context.reconcilePatienceMs) {
    context.log.warn("a debit batch could not be reconciled; it is tried again next round", {
      tx,
      error: describeFailure(error),
      failing_for_ms: failingForMs,
    });
    return;
  }
  context.unreconciledSince.delete(tx);
  const stuck = await context.db
    .select({ onChainRunId: runs.onChainRunId })
    .from(runs)
    .where(and(eq(runs.debitTx, tx), eq(runs.charge, "debit_pending")));
  await quarantineRuns(
    context,
    stuck.map(({ onChainRunId }) => BigInt(onChainRunId)),
    `their debit batch ${tx} could not be reconciled for ${Math.round(failingForMs / 1000)} s: ${describeFailure(error)}`,
  );
}

async function chainAnswers({ chain }: SettlementContext): Promise<boolean> {
  return chain.client.getBlockNumber().then(
    () => true,
    () => false,
  );
}

async function receiptIfMined(
  { chain }: SettlementContext,
  hash: Hex,
): Promise<TransactionReceipt | undefined> {
  try {
    return await chain.client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw error;
  }
}

/** The receipt of a transaction the chain still holds pending, waited for; undefined when it holds none. */
async function receiptOnceMined(
  context: SettlementContext,
  hash: Hex,
): Promise<TransactionReceipt | undefined> {
  if (!(await isPending(context, hash))) return undefined;
  context.log.info("waiting for a debit batch still pending", { tx: hash });
  return context.chain.receiptOf(hash, context.receiptTimeoutMs);
}

async function isPending({ chain }: SettlementContext, hash: Hex): Promise<boolean> {
  try {
    await chain.client.getTransaction({ hash });
    return true;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false;
    throw error;
  }
}
