import { createPublicClient, http } from "viem";
import {
  type Deployment,
  type DeploymentAccounts,
  deployMarketplace,
} from "./deployMarketplace.ts";
import { readDeployment, writeDeployment } from "./deploymentFile.ts";

/**
 * The marketplace recorded in `deploymentFile` if its code is still on the chain, otherwise a fresh
 * deployment by the accounts `accounts` names for that chain, recorded there. Restarting against a
 * persisted chain therefore never deploys twice.
 */
export async function ensureDeployment(
  deploymentFile: string,
  options: {
    rpcUrl: string;
    accounts: (chainId: number) => DeploymentAccounts;
  },
): Promise<{ deployment: Deployment; deployedNow: boolean }> {
  const client = createPublicClient({ transport: http(options.rpcUrl) });
  const chainId = await client.getChainId();
  const recorded = await readDeployment(deploymentFile);
  if (recorded && recorded.chainId === chainId) {
    const code = await client.getCode({ address: recorded.address });
    if (code && code !== "0x") return { deployment: recorded, deployedNow: false };
  }
  const deployment = await deployMarketplace({
    rpcUrl: options.rpcUrl,
    ...options.accounts(chainId),
  });
  await writeDeployment(deploymentFile, deployment);
  return { deployment, deployedNow: true };
}
