import type { Hex, TransactionReceipt } from "viem";
import { applyDebitReceipt } from "./applyDebitReceipt.ts";
import type { SettlementContext } from "./settlementContext.ts";

/**
 * Settles a mined debit batch by its receipt once `confirmations` blocks are mined on top of its
 * block. Until then the batch stays submitted, and `reconcileDebits` reads its receipt afresh each
 * round: a reorg that drops the block meanwhile leaves no receipt, the batch is settled as lost (its
 * runs sent again), and no run is marked debited by a transaction the chain no longer holds.
 * Returns whether it settled; `runsSent` as for `applyDebitReceipt`.
 */
export async function settleConfirmedReceipt(
  context: SettlementContext,
  receipt: TransactionReceipt,
  tx: Hex,
  runsSent?: number,
): Promise<boolean> {
  if (context.confirmations > 0n) {
    const head = await context.chain.client.getBlockNumber();
    if (head < receipt.blockNumber + context.confirmations) return false;
  }
  await applyDebitReceipt(context, receipt, tx, runsSent);
  return true;
}
