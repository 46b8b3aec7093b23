import { markQuarantined } from "../../lib/runLedger/markRuns.ts";
import type { SettlementContext } from "./settlementContext.ts";

/**
 * Sets aside runs settlement cannot tell whether the chain debited, so that they hold up nothing
 * else: still awaiting their debit, their reservation held, never sent again nor taken as debited
 * until an operator decides (docs/execution.md, "Settlement"). Loudly: an error naming them and why.
 */
export async function quarantineRuns(
  { db, log }: SettlementContext,
  onChainRunIds: bigint[],
  reason: string,
): Promise<void> {
  const quarantined = await markQuarantined(db, onChainRunIds, reason);
  if (quarantined.length === 0) return;
  log.error("runs set aside: settlement cannot tell whether the chain debited them", {
    runs: quarantined,
    on_chain_run_ids: onChainRunIds.map(String),
    reason,
  });
}
