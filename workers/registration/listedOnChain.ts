import { createPublicClient, type Hex, http, zeroAddress } from "viem";
import type { Deployment } from "../../lib/chain/deployMarketplace.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";

/** A call to the node that does not answer within this fails, and the sweep tries again later. */
const READ_TIMEOUT_MS = 5_000;

/** Whether a listing exists on-chain under an id (any status), read at the latest block. */
export type ListedOnChain = (onChainListingId: Hex) => Promise<boolean>;

export function listedOnChain({
  rpcUrl,
  deployment,
}: {
  rpcUrl: string;
  deployment: Deployment;
}): ListedOnChain {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: READ_TIMEOUT_MS }) });
  return async (onChainListingId) => {
    const [creator] = await client.readContract({
      address: deployment.address,
      abi: serviceMarketplaceAbi,
      functionName: "listings",
      args: [onChainListingId],
    });
    return creator !== zeroAddress;
  };
}
