import { readFileSync } from "node:fs";
import { createConfig } from "ponder";
import { parseDeployment } from "./lib/chain/deploymentFile.ts";
import { serviceMarketplaceAbi } from "./lib/contracts/serviceMarketplace.ts";

function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set for the indexer`);
  return value;
}

const deployment = parseDeployment(
  readFileSync(process.env.DEPLOYMENT_FILE ?? ".data/deployment.json", "utf8"),
);

export default createConfig({
  database: { kind: "postgres", connectionString: requireEnv("DATABASE_URL") },
  chains: {
    marketplace: {
      id: deployment.chainId,
      rpc: requireEnv("RPC_URL"),
      // A local chain mines on demand: poll often so projections follow within a few hundred ms.
      pollingInterval: Number(process.env.PONDER_POLLING_INTERVAL_MS ?? 100),
    },
  },
  contracts: {
    ServiceMarketplace: {
      chain: "marketplace",
      abi: serviceMarketplaceAbi,
      address: deployment.address,
      startBlock: deployment.startBlock,
    },
  },
});
