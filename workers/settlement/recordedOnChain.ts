import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import type { SettlementChain } from "./settlementChain.ts";

/** Which of these run ids the contract held as settled (debited or logged) at block `head`. */
export async function recordedOnChain(
  chain: SettlementChain,
  onChainRunIds: bigint[],
  head: bigint,
): Promise<Set<bigint>> {
  const recorded = await Promise.all(
    onChainRunIds.map((runId) =>
      chain.client.readContract({
        address: chain.marketplace,
        abi: serviceMarketplaceAbi,
        functionName: "isRunRecorded",
        args: [runId],
        blockNumber: head,
      }),
    ),
  );
  return new Set(onChainRunIds.filter((_, i) => recorded[i]));
}
