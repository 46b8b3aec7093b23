import { type Chain, custom, defineChain, fallback, type Transport } from "viem";
import { createConfig, http, injected, mock } from "wagmi";
import type { DashboardConfig } from "../config/loadConfig.ts";

/** The chain of the deployment; on the local chain, a labelled connector of anvil's public accounts. */
export function createWagmiConfig(config: DashboardConfig) {
  const chain: Chain = defineChain({
    id: config.chain_id,
    name: config.chain_id === 31337 ? "Local chain (anvil)" : `Chain ${config.chain_id}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: config.rpc_url ? [config.rpc_url] : [] } },
  });
  return createConfig({
    chains: [chain],
    connectors: [
      injected({ shimDisconnect: true }),
      ...(config.dev_account
        ? [mock({ accounts: [config.dev_account], features: { reconnect: true } })]
        : []),
    ],
    transports: { [chain.id]: transportOf(config.rpc_url) },
  });
}

/** Reads go to the public RPC endpoint, else through the injected wallet. */
function transportOf(rpcUrl: string | null): Transport {
  if (rpcUrl) return http(rpcUrl);
  const ethereum = (window as { ethereum?: Parameters<typeof custom>[0] }).ethereum;
  return ethereum ? custom(ethereum) : fallback([]);
}
