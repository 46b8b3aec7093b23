// Runs the marketplace on its embedded defaults: a local chain with persisted state and the contract.
import { join } from "node:path";
import { ensureDeployment } from "../lib/chain/ensureDeployment.ts";
import { parseEnv } from "../lib/env.ts";
import type { Service } from "../lib/localStack/spawnService.ts";
import { startAnvil } from "../lib/localStack/startAnvil.ts";

const env = parseEnv();
const services: Service[] = [];

async function stopAll() {
  for (const service of services.reverse()) await service.stop();
}

async function main() {
  let rpcUrl = env.RPC_URL;
  if (!rpcUrl) {
    const statePath = join(env.DATA_DIR, "anvil-state.json");
    const anvil = await startAnvil({ port: env.ANVIL_PORT, statePath });
    services.push(anvil);
    rpcUrl = anvil.rpcUrl;
    console.log(`Chain:             ${rpcUrl} (anvil, state kept in ${statePath})`);
  }

  const { deployment, deployedNow } = await ensureDeployment(env.DEPLOYMENT_FILE, {
    rpcUrl,
    deployerKey: env.DEPLOYER_PRIVATE_KEY,
    authority: env.AUTHORITY_ADDRESS,
    feeRecipient: env.FEE_RECIPIENT_ADDRESS,
  });
  console.log(
    `ServiceMarketplace: ${deployment.address} (chain ${deployment.chainId}, block ${deployment.startBlock}, ${deployedNow ? "deployed now" : "already deployed"})`,
  );
  console.log("Press Ctrl+C to stop.");
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    stopAll().then(() => process.exit(0));
  });
}

main().catch(async (error) => {
  console.error(error instanceof Error ? error.message : error);
  await stopAll();
  process.exit(1);
});
