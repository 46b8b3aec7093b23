import type { Hex } from "viem";
import { useReadContract } from "wagmi";
import { useDashboardConfig } from "../config/ConfigContext.tsx";
import { useSession } from "../session/SessionContext.tsx";
import { serviceMarketplaceAbi } from "./marketplace.ts";

/** Runs are debited on-chain shortly after they end: the balance is read again this often. */
const REFRESH_MS = 2_000;

/** The connected wallet's per-task balance on a listing, read from the contract. */
export function usePerTaskBalance(onChainId: Hex | undefined) {
  const { marketplace } = useDashboardConfig();
  const { address } = useSession();
  const read = useReadContract({
    address: marketplace,
    abi: serviceMarketplaceAbi,
    functionName: "perQueryBalances",
    args: onChainId && address ? [onChainId, address] : undefined,
    query: { enabled: !!onChainId && !!address, refetchInterval: REFRESH_MS },
  });
  return { ...read, balance: read.data?.[0] };
}
