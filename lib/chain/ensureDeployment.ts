import { createPublicClient, http } from "viem";
import { type Deployment, type DeployOptions, deployMarketplace } from "./deployMarketplace.ts";
import { readDeployment, writeDeployment } from "./deploymentFile.ts";

/**
 * The marketplace recorded in `deploymentFile` if its code is still on the chain, otherwise a fresh
 * deployment, recorded there. Restarting against a persisted chain therefore never deploys twice.
 */
export async function ensureDeployment(
  deploymentFile: string,
  options: DeployOptions,
): Promise<{ deployment: Deployment; deployedNow: boolean }> {
  const client = createPublicClient({ transport: http(options.rpcUrl) });
  const recorded = await readDeployment(deploymentFile);
  if (recorded && recorded.chainId === (await client.getChainId())) {
    const code = await client.getCode({ address: recorded.address });
    if (code && code !== "0x") return { deployment: recorded, deployedNow: false };
  }
  const deployment = await deployMarketplace(options);
  await writeDeployment(deploymentFile, deployment);
  return { deployment, deployedNow: true };
}
