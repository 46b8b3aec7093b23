import { readFileSync } from "node:fs";
import { createConfig } from "ponder";
import { z } from "zod/v4";
import { parseDeployment } from "./lib/chain/deploymentFile.ts";
import { serviceMarketplaceAbi } from "./lib/contracts/serviceMarketplace.ts";
import { deploymentFileOf, envFields, parseEnvironment } from "./lib/env.ts";

const env = parseEnvironment(
  z.object(
    envFields(
      "DATABASE_URL",
      "RPC_URL",
      "DATA_DIR",
      "DEPLOYMENT_FILE",
      "PONDER_POLLING_INTERVAL_MS",
    ),
  ),
);
const deployment = parseDeployment(readFileSync(deploymentFileOf(env), "utf8"));

export default createConfig({
  database: { kind: "postgres", connectionString: env.DATABASE_URL },
  chains: {
    marketplace: {
      id: deployment.chainId,
      rpc: env.RPC_URL,
      // A local chain mines on demand: poll often so projections follow within a few hundred ms.
      pollingInterval: env.PONDER_POLLING_INTERVAL_MS,
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
