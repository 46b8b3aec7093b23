import { useQuery } from "@tanstack/react-query";
import { usePublicClient } from "wagmi";
import { serviceMarketplaceAbi } from "../chain/marketplace.ts";
import { useDashboardConfig } from "../config/ConfigContext.tsx";
import { useSession } from "../session/SessionContext.tsx";

/** The on-chain ids of the listings the connected wallet created, from the contract's events. */
export function useMyListingIds() {
  const { marketplace, start_block } = useDashboardConfig();
  const { address } = useSession();
  const publicClient = usePublicClient();
  return useQuery({
    queryKey: ["my-listings", address],
    enabled: !!publicClient && !!address,
    queryFn: async () => {
      const created = await publicClient?.getContractEvents({
        address: marketplace,
        abi: serviceMarketplaceAbi,
        eventName: "ListingCreated",
        args: { creator: address },
        fromBlock: BigInt(start_block),
      });
      return (created ?? []).map((log) => log.args.listingId).filter((id) => id !== undefined);
    },
  });
}
