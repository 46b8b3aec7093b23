import type { Hex } from "viem";
import { useReadContract } from "wagmi";
import { useDashboardConfig } from "../config/ConfigContext.tsx";
import { serviceMarketplaceAbi } from "./marketplace.ts";

/** The listing as the contract holds it: its exact price in wei, escrow and status. */
export function useOnChainListing(onChainId: Hex | undefined) {
  const { marketplace } = useDashboardConfig();
  const read = useReadContract({
    address: marketplace,
    abi: serviceMarketplaceAbi,
    functionName: "listings",
    args: onChainId ? [onChainId] : undefined,
    query: { enabled: !!onChainId },
  });
  const [creator, price, escrow, , model, status] = read.data ?? [];
  return { ...read, listing: read.data ? { creator, price, escrow, model, status } : undefined };
}
