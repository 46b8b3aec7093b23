import { useQueryClient } from "@tanstack/react-query";
import { useWatchContractEvent } from "wagmi";
import { serviceMarketplaceAbi } from "../chain/marketplace.ts";
import { useDashboardConfig } from "../config/ConfigContext.tsx";

/** Every query is fetched again when the marketplace emits an event: a purchase, a run, a change. */
export function useLiveMarketplace() {
  const { marketplace } = useDashboardConfig();
  const queryClient = useQueryClient();
  useWatchContractEvent({
    address: marketplace,
    abi: serviceMarketplaceAbi,
    pollingInterval: 1_000,
    onLogs: () => queryClient.invalidateQueries(),
  });
}
