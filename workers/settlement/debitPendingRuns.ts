import { and, asc, eq, isNull } from "drizzle-orm";
import { getAddress, type Hex } from "viem";
import { runs } from "../../lib/db/appSchema.ts";
import { recordAnchorTx } from "../../lib/runLedger/assignAnchor.ts";
import { markSubmitted, runToSettle } from "../../lib/runLedger/markRuns.ts";
import { type AnchorToSend, confirmAnchor, NO_ANCHOR } from "./anchorRuns.ts";
import { startDebitSpans } from "./debitSpans.ts";
import { settleConfirmedReceipt } from "./settleConfirmedReceipt.ts";
import type { SettlementContext } from "./settlementContext.ts";

/**
 * Debits the oldest runs awaiting their debit in one `settle`, with `anchor` when there is one: the
 * transaction's hash (and, at their first submission, the chain's head) is recorded on them before it
 * is sent, then its receipt settles each, at once or, with confirmations to wait for, in a later
 * round's `reconcileDebits`. Returns how many it sent; when none, the anchor is still to send.
 */
export async function debitPendingRuns(
  context: SettlementContext,
  anchor: AnchorToSend | undefined,
): Promise<number> {
  const { db, chain, leadership, log } = context;
  const due = await db
    .select(runToSettle)
    .from(runs)
    .where(and(eq(runs.charge, "debit_pending"), isNull(runs.debitTx), isNull(runs.quarantinedAt)))
    .orderBy(asc(runs.finishedAt), asc(runs.onChainRunId))
    .limit(context.debitBatchSize);
  if (due.length === 0) return 0;
  const debits = due.map((run) => ({
    listingId: run.onChainListingId as Hex,
    buyer: getAddress(run.wallet),
    runId: BigInt(run.onChainRunId),
    maxPrice: BigInt(run.reservedWei),
    // A run that failed after its output reached the renter is charged too: its event says it failed.
    succeeded: run.status === "completed",
  }));
  const runIds = due.map(({ id }) => id);
  const spans = startDebitSpans(due);
  try {
    // No block before this one can hold the debits: where a search for them starts.
    const head = await chain.client.getBlockNumber();
    const { root, counts } = anchor ?? NO_ANCHOR;
    const tx = await chain.send(
      { functionName: "settle", args: [debits, root, counts] },
      async (hash) =>
        (await leadership.leads()) &&
        (await markSubmitted(db, runIds, hash, head)) &&
        (!anchor || (await recordAnchorTx(db, root, hash))),
    );
    if (tx === undefined) return 0;
    log.info("debit batch sent", { tx, runs: due.length, ...(anchor && { anchor: root }) });
    spans.record({ "marketplace.settlement.tx": tx });
    const receipt = await chain.receiptOf(tx, context.receiptTimeoutMs);
    spans.record({
      "marketplace.settlement.outcome": receipt.status === "reverted" ? "reverted" : "mined",
      "marketplace.settlement.gas_used": Number(receipt.gasUsed),
    });
    // A batch reverted whole leaves its anchor pending: the next round sends it again.
    if (anchor && receipt.status === "success") await confirmAnchor(context, root, receipt);
    if (!(await settleConfirmedReceipt(context, receipt, tx, due.length))) {
      log.info("debit batch mined; its runs are debited once it is confirmed", {
        tx,
        block: receipt.blockNumber.toString(),
        confirmations: context.confirmations.toString(),
      });
    }
    return due.length;
  } catch (error) {
    spans.fail();
    throw error;
  } finally {
    spans.end();
  }
}
