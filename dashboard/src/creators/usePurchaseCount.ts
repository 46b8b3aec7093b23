import { useQuery } from "@tanstack/react-query";
import type { Hex } from "viem";
import { usePublicClient } from "wagmi";
import { serviceMarketplaceAbi } from "../chain/marketplace.ts";
import { useDashboardConfig } from "../config/ConfigContext.tsx";

/** Purchases of a listing (first purchases, renewals and top-ups), counted from the contract's events. */
export function usePurchaseCount(onChainId: Hex) {
  const { marketplace, start_block } = useDashboardConfig();
  const publicClient = usePublicClient();
  return useQuery({
    queryKey: ["purchases", onChainId],
    enabled: !!publicClient,
    queryFn: async () => {
      const counts = await Promise.all(
        (
          [
            "AccessPurchased",
            "SubscriptionRenewed",
            "PerQueryPurchased",
            "BalanceToppedUp",
          ] as const
        ).map(
          async (eventName) =>
            (
              (await publicClient?.getContractEvents({
                address: marketplace,
                abi: serviceMarketplaceAbi,
                eventName,
                args: { listingId: onChainId },
                fromBlock: BigInt(start_block),
              })) ?? []
            ).length,
        ),
      );
      return counts.reduce((sum, count) => sum + count, 0);
    },
  });
}
