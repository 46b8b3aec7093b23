import type { Address } from "viem";
import { devAccount, LOCAL_CHAIN_ID } from "../../lib/chain/devAccounts.ts";
import type { DashboardConfig } from "./dashboardSite.ts";

/**
 * The dev account the dashboard offers on the local chain: one with no role in `npm start` (0 deploys
 * and is the authority, 1 collects fees, 8 is the operator, 9 the demo creator).
 */
const DASHBOARD_DEV_ACCOUNT = 3;

/**
 * The dashboard's config. The API's own RPC_URL may carry a provider's key, so browsers get it only
 * on the local chain; elsewhere DASHBOARD_RPC_URL names a public endpoint, or the wallet reads.
 */
export function dashboardConfig({
  chainId,
  marketplace,
  rpcUrl,
  publicRpcUrl,
}: {
  chainId: number;
  marketplace: Address;
  rpcUrl: string;
  publicRpcUrl: string | undefined;
}): DashboardConfig {
  const local = chainId === LOCAL_CHAIN_ID;
  return {
    chain_id: chainId,
    rpc_url: publicRpcUrl ?? (local ? rpcUrl : null),
    marketplace,
    dev_account: local ? devAccount(DASHBOARD_DEV_ACCOUNT).address : null,
  };
}
