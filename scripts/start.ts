// Runs the marketplace on its embedded defaults: a local chain with persisted state, the contract,
// an embedded Postgres kept between runs, and the indexer. RPC_URL and DATABASE_URL point elsewhere.
import { join } from "node:path";
import postgres from "postgres";
import { ensureDevCertificates } from "../devStack/devCertificates.ts";
import { indexerSchemaName } from "../devStack/indexerSchemaName.ts";
import type { Service } from "../devStack/spawnService.ts";
import { startAnvil } from "../devStack/startAnvil.ts";
import { startApi } from "../devStack/startApi.ts";
import { startPonder } from "../devStack/startPonder.ts";
import { startPostgres } from "../devStack/startPostgres.ts";
import { startVendorEmulator } from "../devStack/vendorEmulator/startVendorEmulator.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { ensureDeployment } from "../lib/chain/ensureDeployment.ts";
import { readDemoAgentSecret } from "./demo/demoAgentSecret.ts";
import { startDemoAgent } from "./demo/demoAgentServer.ts";
import { demoVendorAnswer } from "./demo/demoVendorAnswers.ts";
import { seedDemoCatalogue } from "./demo/seedDemoCatalogue.ts";
import { deploymentAccounts } from "./deploymentAccounts.ts";
import { parseStartEnv } from "./env.ts";

const env = parseStartEnv();
/** How often the indexer's supervisor compares Ponder with the chain's head. */
const SUPERVISOR_CHECK_EVERY_MS = 2_000;
/**
 * Node's flags for the processes started here: a young generation of 1 MB semi-spaces instead of
 * up to 16 MB ones, which a marketplace at rest has no use for (docs/benchmarks.md, "`npm start` at rest").
 */
const SMALL_HEAP_FLAGS = ["--max-semi-space-size=1"];
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
    console.log(`Chain:              ${rpcUrl} (anvil, state kept in ${statePath})`);
  }

  const { deployment, deployedNow } = await ensureDeployment(env.DEPLOYMENT_FILE, {
    rpcUrl,
    accounts: (chainId) => deploymentAccounts(chainId, env),
  });
  console.log(
    `ServiceMarketplace: ${deployment.address} (chain ${deployment.chainId}, block ${deployment.startBlock}, ${deployedNow ? "deployed now" : "already deployed"})`,
  );

  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    const dataDir = join(env.DATA_DIR, "postgres");
    const database = await startPostgres({ port: env.POSTGRES_PORT, dataDir });
    services.push(database);
    databaseUrl = database.databaseUrl;
    console.log(
      `Postgres:           127.0.0.1:${env.POSTGRES_PORT} (embedded, data in ${database.clusterDir})`,
    );
    // A fresh deployment on the embedded chain means a new chain history: Ponder's block cache
    // describes the old one and must not be replayed.
    if (deployedNow) await dropSyncCache(databaseUrl);
  }

  console.log("Indexer:            backfilling…");
  const ponder = await startPonder({
    port: env.PONDER_PORT,
    databaseUrl,
    rpcUrl,
    deploymentFile: env.DEPLOYMENT_FILE,
    schema: indexerSchemaName(deployment),
    viewsSchema: env.VIEWS_SCHEMA,
    pollingIntervalMs: env.PONDER_POLLING_INTERVAL_MS,
    // At rest the supervisor's checks are most of the idle CPU it causes (here, in Ponder, in
    // Postgres and in anvil); every 2 s still catches a stall within its 5 s.
    checkEveryMs: SUPERVISOR_CHECK_EVERY_MS,
    // Its output is not shown here: left at info, it would format and write lines nobody reads.
    logLevel: "warn",
    nodeFlags: SMALL_HEAP_FLAGS,
  });
  services.push(ponder);
  console.log(
    `Indexer:            ${ponder.url} (GraphQL ${ponder.url}/graphql, SQL ${ponder.url}/sql; projections in schema "${env.VIEWS_SCHEMA}")`,
  );

  // The demo's connected agent, over HTTPS from the dev CA the workers trust on the local chain only,
  // and the model vendor its declarative agent runs on: the vendor emulator, unless one is set.
  let demoAgentUrl: string | undefined;
  const vendorEnv: Record<string, string> = {};
  if (!env.RPC_URL) {
    const demoAgent = await startDemoAgent({
      port: env.DEMO_AGENT_PORT,
      certificates: await ensureDevCertificates(env.DATA_DIR),
      webhookSecret: () => readDemoAgentSecret(env.DATA_DIR),
    });
    services.push(demoAgent);
    demoAgentUrl = demoAgent.url;
    console.log(
      `Demo agent:         ${demoAgent.url} (connected agent, dev CA in ${env.DATA_DIR}/dev-ca)`,
    );
    if (!process.env.OPENAI_BASE_URL && !process.env.ANTHROPIC_BASE_URL) {
      const vendor = await startVendorEmulator({
        port: env.DEMO_VENDOR_PORT,
        answer: demoVendorAnswer,
      });
      services.push(vendor);
      vendorEnv.OPENAI_BASE_URL = vendor.openaiBaseUrl;
      vendorEnv.ANTHROPIC_BASE_URL = vendor.anthropicBaseUrl;
      console.log(
        `Model vendors:      ${vendor.url} (the vendor emulator, for the demo's declarative agent)`,
      );
    }
  }

  const api = await startApi({
    port: env.API_PORT,
    env: {
      DATABASE_URL: databaseUrl,
      RPC_URL: rpcUrl,
      DATA_DIR: env.DATA_DIR,
      DEPLOYMENT_FILE: env.DEPLOYMENT_FILE,
      VIEWS_SCHEMA: env.VIEWS_SCHEMA,
      ...vendorEnv,
    },
    onOutput: (line) => process.stdout.write(line),
    nodeFlags: SMALL_HEAP_FLAGS,
  });
  services.push(api);
  console.log(`API:                ${api.url}/v1`);
  console.log(`Dashboard:          ${api.url}/ (open it in a browser)`);

  // The demo creator is one of anvil's public dev accounts: only on the embedded chain.
  if (demoAgentUrl) {
    const listed = await seedDemoCatalogue({
      apiUrl: api.url,
      rpcUrl,
      marketplace: deployment.address,
      creator: devAccount(9),
      dataDir: env.DATA_DIR,
      deploymentId: deployment.transactionHash,
      connectedAgentUrl: demoAgentUrl,
    });
    for (const listing of listed) console.log(`Demo listing:       ${listing}`);
  }
  console.log("Press Ctrl+C to stop.");
}

async function dropSyncCache(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`drop schema if exists ponder_sync cascade`;
  } finally {
    await sql.end();
  }
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
