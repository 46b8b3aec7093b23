import { useWriteContract } from "wagmi";
import { useDashboardConfig } from "../config/ConfigContext.tsx";
import { serviceMarketplaceAbi } from "./marketplace.ts";

/** What a form needs to call the marketplace contract from the connected wallet. */
export function useMarketplaceWrite() {
  const { marketplace } = useDashboardConfig();
  const { mutateAsync } = useWriteContract();
  return { address: marketplace, abi: serviceMarketplaceAbi, write: mutateAsync };
}
