import { type DebitedRun, markDebited } from "../../lib/runLedger/markRuns.ts";
import { findDebits, type RunToFind } from "./findDebits.ts";
import { quarantineRuns } from "./quarantineRuns.ts";
import type { SettlementContext } from "./settlementContext.ts";

/**
 * Runs awaiting their debit whose ids the contract holds as settled already: each debited by an
 * earlier transaction (its own `QueryConsumed`, searched for up to `head`), or else set aside. Its id
 * was then settled by something that is not its debit (a database restored from a backup hands out
 * run ids again): the run can be neither charged under that id nor taken as charged.
 */
export async function settleRecordedRuns(
  context: SettlementContext,
  recorded: RunToFind[],
  head: bigint,
): Promise<DebitedRun[]> {
  if (recorded.length === 0) return [];
  const debits = await findDebits(context.chain, recorded, head);
  const debited = await markDebited(context.db, debits);
  const unexplained = recorded
    .map(({ onChainRunId }) => BigInt(onChainRunId))
    .filter((runId) => !debits.has(runId));
  if (unexplained.length > 0) {
    await quarantineRuns(
      context,
      unexplained,
      "the chain holds the run id as settled, but no debit of this run's renter on its listing since it was first submitted",
    );
  }
  return debited;
}
