// Deploys ServiceMarketplace to RPC_URL unless the recorded deployment is already there.
import { ensureDeployment } from "../lib/chain/ensureDeployment.ts";
import { deploymentAccounts } from "./deploymentAccounts.ts";
import { parseStartEnv } from "./env.ts";

const env = parseStartEnv();
const rpcUrl = env.RPC_URL ?? `http://127.0.0.1:${env.ANVIL_PORT}`;
const { deployment, deployedNow } = await ensureDeployment(env.DEPLOYMENT_FILE, {
  rpcUrl,
  accounts: (chainId) => deploymentAccounts(chainId, env),
});
console.log(
  `ServiceMarketplace: ${deployment.address} (chain ${deployment.chainId}, block ${deployment.startBlock}, ${deployedNow ? "deployed now" : "already deployed"}); recorded in ${env.DEPLOYMENT_FILE}`,
);
