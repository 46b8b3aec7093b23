import type { Address } from "viem";
import { devAccount, LOCAL_CHAIN_ID } from "../../lib/chain/devAccounts.ts";
import type { DashboardConfig } from "./dashboardSite.ts";

/** Dev accounts offered to the dashboard: the first ten, whose keys anvil prints at start. */
const DEV_ACCOUNT_COUNT = 10;

/**
 * The dashboard's config. The API's own RPC_URL may carry a provider's key, so browsers get it only
 * on the local chain; elsewhere DASHBOARD_RPC_URL names a public endpoint, or the wallet reads.
 */
export function dashboardConfig({
  chainId,
  marketplace,
  startBlock,
  rpcUrl,
  publicRpcUrl,
}: {
  chainId: number;
  marketplace: Address;
  startBlock: number;
  rpcUrl: string;
  publicRpcUrl: string | undefined;
}): DashboardConfig {
  const local = chainId === LOCAL_CHAIN_ID;
  return {
    chain_id: chainId,
    rpc_url: publicRpcUrl ?? (local ? rpcUrl : null),
    marketplace,
    start_block: startBlock,
    dev_accounts: local
      ? Array.from({ length: DEV_ACCOUNT_COUNT }, (_, index) => devAccount(index).address)
      : [],
  };
}
