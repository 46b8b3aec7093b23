// Deploys ServiceMarketplace to RPC_URL unless the recorded deployment is already there, then writes
// the deployment record (DEPLOYMENT_FILE) and, beside it, the standard-JSON input for verifying the
// source on an explorer (docs/deploy.md).
import { writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { createPublicClient, http } from "viem";
import { writeDeployment } from "../lib/chain/deploymentFile.ts";
import { LOCAL_CHAIN_ID } from "../lib/chain/devAccounts.ts";
import { ensureDeployment } from "../lib/chain/ensureDeployment.ts";
import { deploymentAccounts } from "./deploymentAccounts.ts";
import { deploymentRecord } from "./deploymentRecord.ts";
import { parseStartEnv } from "./env.ts";
import { marketplaceCompilation, marketplaceVerificationInput } from "./verificationInput.ts";

const env = parseStartEnv();
const rpcUrl = env.RPC_URL ?? `http://127.0.0.1:${env.ANVIL_PORT}`;
const chainId = await createPublicClient({ transport: http(rpcUrl) }).getChainId();
// The default record lives among the local chain's state in DATA_DIR, which `npm start` replaces
// with a deployment of its own: a public deployment's record must be kept apart, by name.
if (chainId !== LOCAL_CHAIN_ID && process.env.DEPLOYMENT_FILE === undefined) {
  throw new Error(
    `Refusing to deploy on chain ${chainId}: set DEPLOYMENT_FILE (e.g. deployments/${chainId}.json); the default ${env.DEPLOYMENT_FILE} is the local chain's`,
  );
}

const { deployment, deployedNow } = await ensureDeployment(env.DEPLOYMENT_FILE, {
  rpcUrl,
  accounts: (chainId) => deploymentAccounts(chainId, env),
});
const inputFile = env.DEPLOYMENT_FILE.replace(/(\.json)?$/, ".standard-input.json");
const input = await marketplaceVerificationInput();
await writeFile(inputFile, `${JSON.stringify(input, null, 2)}\n`);
const record = await deploymentRecord(
  rpcUrl,
  deployment,
  await marketplaceCompilation(),
  basename(inputFile),
);
await writeDeployment(env.DEPLOYMENT_FILE, record);
console.log(
  `ServiceMarketplace: ${deployment.address} (chain ${deployment.chainId}, block ${deployment.startBlock}, ${deployedNow ? "deployed now" : "already deployed"}); recorded in ${env.DEPLOYMENT_FILE}, verification input in ${inputFile}`,
);
