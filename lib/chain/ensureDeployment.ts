import { createPublicClient, http } from "viem";
import { serviceMarketplaceDeployedBytecode } from "../contracts/serviceMarketplace.ts";
import {
  type Deployment,
  type DeploymentAccounts,
  deployMarketplace,
} from "./deployMarketplace.ts";
import { readDeployment, writeDeployment } from "./deploymentFile.ts";
import { LOCAL_CHAIN_ID } from "./devAccounts.ts";

/**
 * The marketplace recorded in `deploymentFile` if the chain runs this build's code there, otherwise a
 * fresh deployment by the accounts `accounts` names for that chain, recorded there. Restarting against
 * a persisted chain therefore never deploys twice, and a changed contract is deployed anew on the
 * local chain. Elsewhere a recorded deployment running other code stops the start: replacing a
 * contract that may hold funds is for someone to decide, not for a restart.
 */
export async function ensureDeployment(
  deploymentFile: string,
  options: { rpcUrl: string; accounts: (chainId: number) => DeploymentAccounts },
): Promise<{ deployment: Deployment; deployedNow: boolean }> {
  const client = createPublicClient({ transport: http(options.rpcUrl) });
  const chainId = await client.getChainId();
  const recorded = await readDeployment(deploymentFile);
  if (recorded && recorded.chainId === chainId) {
    const code = (await client.getCode({ address: recorded.address }))?.toLowerCase();
    if (code === serviceMarketplaceDeployedBytecode.toLowerCase()) {
      return { deployment: recorded, deployedNow: false };
    }
    if (code && code !== "0x" && chainId !== LOCAL_CHAIN_ID) {
      throw new Error(
        `The marketplace recorded in ${deploymentFile} (${recorded.address} on chain ${chainId}) runs other code than this build. Build the version it runs, or remove the record to deploy this one.`,
      );
    }
  }
  const deployment = await deployMarketplace({
    rpcUrl: options.rpcUrl,
    ...options.accounts(chainId),
  });
  await writeDeployment(deploymentFile, deployment);
  return { deployment, deployedNow: true };
}
