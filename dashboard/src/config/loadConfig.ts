import type { Address } from "viem";

/** The deployment the dashboard works with, as the API serves it (`api/dashboard/dashboardSite.ts`). */
export type DashboardConfig = {
  chain_id: number;
  /** null: the chain is read through the wallet. */
  rpc_url: string | null;
  marketplace: Address;
  /** One of anvil's public accounts, whose transactions anvil signs: on the local chain only. */
  dev_account: Address | null;
};

export async function loadConfig(): Promise<DashboardConfig> {
  const response = await fetch("/dashboard/config.json");
  if (!response.ok) throw new Error(`The dashboard's config did not load (${response.status})`);
  return response.json();
}
