import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import type { Debit } from "../../lib/runLedger/markRuns.ts";
import type { SettlementChain } from "./settlementChain.ts";

/**
 * The debits the chain holds of these run ids, whichever transaction made them: `QueryConsumed`
 * logs by their indexed run id, since the deployment. What decides a run whose transaction is lost.
 */
export async function findDebits(
  chain: SettlementChain,
  onChainRunIds: bigint[],
): Promise<Map<bigint, Debit>> {
  const found = new Map<bigint, Debit>();
  if (onChainRunIds.length === 0) return found;
  const logs = await chain.client.getContractEvents({
    address: chain.marketplace,
    abi: serviceMarketplaceAbi,
    eventName: "QueryConsumed",
    args: { runId: onChainRunIds },
    fromBlock: chain.startBlock,
    toBlock: "latest",
    strict: true,
  });
  for (const log of logs) {
    found.set(log.args.runId, {
      price: log.args.price,
      block: log.blockNumber,
      tx: log.transactionHash,
    });
  }
  return found;
}
