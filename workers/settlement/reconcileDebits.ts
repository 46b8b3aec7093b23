import { and, eq, isNotNull } from "drizzle-orm";
import {
  type Hex,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import { runs } from "../../lib/db/appSchema.ts";
import { announceChanged } from "../../lib/runLedger/announce.ts";
import { clearSubmission, markDebited } from "../../lib/runLedger/markRuns.ts";
import { applyDebitReceipt } from "./applyDebitReceipt.ts";
import { findDebits } from "./findDebits.ts";
import type { SettlementContext } from "./settlementContext.ts";

/**
 * Settles runs whose debit was submitted but never read back (the leader died, the chain went away,
 * the receipt never came), before any of them is sent again: by the transaction's receipt; by waiting
 * while the chain still holds it pending; else (never sent, or dropped) by the `QueryConsumed` logs of
 * their run ids, and only the runs the chain never debited are released for a new batch. The contract
 * refuses a replayed run id, so even a wrong guess here could not charge twice.
 */
export async function reconcileDebits(context: SettlementContext): Promise<number> {
  const { db, chain, log } = context;
  const submitted = await db
    .selectDistinct({ tx: runs.debitTx })
    .from(runs)
    .where(and(eq(runs.charge, "debit_pending"), isNotNull(runs.debitTx)));
  for (const { tx } of submitted) {
    if (tx === null) continue;
    const hash = tx as Hex;
    const receipt = await receiptIfMined(context, hash);
    if (receipt) {
      await applyDebitReceipt(context, receipt, hash);
      continue;
    }
    if (await isPending(context, hash)) {
      log.info("waiting for a debit batch still pending", { tx: hash });
      await applyDebitReceipt(context, await chain.receiptOf(hash, context.receiptTimeoutMs), hash);
      continue;
    }
    await settleLostSubmission(context, hash);
  }
  return submitted.length;
}

/** A submission the chain does not know: what it logged of its runs decides, the rest go again. */
async function settleLostSubmission(context: SettlementContext, tx: Hex): Promise<void> {
  const { db, chain, log } = context;
  const lost = await db
    .select({ onChainRunId: runs.onChainRunId })
    .from(runs)
    .where(and(eq(runs.debitTx, tx), eq(runs.charge, "debit_pending")));
  const runIds = lost.map(({ onChainRunId }) => BigInt(onChainRunId));
  const debits = await findDebits(chain, runIds);
  const changed = await markDebited(db, debits);
  await clearSubmission(db, tx);
  announceChanged(context.bus, changed);
  log.warn("a debit batch was never mined; its undebited runs go into the next batch", {
    tx,
    debited_elsewhere: debits.size,
    to_send_again: runIds.length - debits.size,
  });
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

async function isPending({ chain }: SettlementContext, hash: Hex): Promise<boolean> {
  try {
    await chain.client.getTransaction({ hash });
    return true;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false;
    throw error;
  }
}
