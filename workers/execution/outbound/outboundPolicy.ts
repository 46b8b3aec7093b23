import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { readDeployment } from "../../../lib/chain/deploymentFile.ts";
import { LOCAL_CHAIN_ID } from "../../../lib/chain/devAccounts.ts";
import { deploymentFileOf } from "../../../lib/env.ts";

/** What calls to creators' endpoints may reach beyond the public internet. */
export type OutboundPolicy = {
  /** Private, loopback and link-local addresses are refused unless this is set (local dev). */
  allowPrivateAddresses: boolean;
  /** A PEM certificate authority trusted beside the default roots (the local dev CA). */
  extraCa?: string;
};

/** The public internet only, with the default roots: what every chain but the local one gets. */
export const PUBLIC_ONLY: OutboundPolicy = { allowPrivateAddresses: false };

/** Where `npm start` keeps the dev certificate authority and the demo agent's certificate. */
export function devCaDirectory(dataDir: string): string {
  return join(dataDir, "dev-ca");
}

export function devCaCertificateFile(dataDir: string): string {
  return join(devCaDirectory(dataDir), "ca.pem");
}

/**
 * The policy of a worker serving the recorded deployment. The chain id comes from the deployment
 * record (DEPLOYMENT_FILE), the one the worker settles on: on the local chain (31337) private
 * addresses are allowed and the dev CA in DATA_DIR is trusted; elsewhere, or without a record,
 * neither. ALLOW_PRIVATE_ENDPOINTS, when set, decides private addresses on any chain.
 */
export async function loadOutboundPolicy(env: {
  DATA_DIR: string;
  DEPLOYMENT_FILE?: string;
  ALLOW_PRIVATE_ENDPOINTS?: boolean;
}): Promise<OutboundPolicy> {
  const deployment = await readDeployment(deploymentFileOf(env));
  const localChain = deployment?.chainId === LOCAL_CHAIN_ID;
  const allowPrivateAddresses = env.ALLOW_PRIVATE_ENDPOINTS ?? localChain;
  if (!localChain) return { allowPrivateAddresses };
  const extraCa = await readFile(devCaCertificateFile(env.DATA_DIR), "utf8").catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    },
  );
  return { allowPrivateAddresses, ...(extraCa !== undefined && { extraCa }) };
}
