import type { Address } from "viem";

/** What the dashboard needs to know of the deployment, served at `/dashboard/config.json`. */
export type DashboardConfig = {
  chain_id: number;
  /** JSON-RPC endpoint browsers read the chain through; null: through the wallet alone. */
  rpc_url: string | null;
  marketplace: Address;
  /** One of anvil's public dev accounts, offered as a labelled connector on the local chain only. */
  dev_account: Address | null;
};

/** The built dashboard (`dashboard/dist`) and its config. */
export type DashboardSite = { dir: string; config: DashboardConfig };
