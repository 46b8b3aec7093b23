// The whole marketplace for cross-process tests: anvil, Postgres, the contract, Ponder and API
// processes, each real and on free loopback ports.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { findFreePort } from "../../devStack/findFreePort.ts";
import { connectMarketplace, METADATA_URI, seedOf } from "../../devStack/marketplace.ts";
import { type Api, startApi } from "../../devStack/startApi.ts";
import { startWorker, type Worker } from "../../devStack/startWorker.ts";
import { saveAgent } from "../../lib/agents/saveAgent.ts";
import { type Deployment, deployMarketplace } from "../../lib/chain/deployMarketplace.ts";
import { devAccount, devPrivateKey } from "../../lib/chain/devAccounts.ts";
import { migrateAppSchema } from "../../lib/db/migrateAppSchema.ts";
import { connectProjections } from "../../lib/db/projections.ts";
import {
  startTestAnvil,
  startTestNats,
  startTestPonder,
  startTestPostgres,
  type TestNats,
} from "./harness.ts";

export const JWT_SECRET = randomBytes(32).toString("hex");
/** The key the API and workers seal prompts and credentials with in tests. */
export const SEALING_KEY = randomBytes(32).toString("hex");

export type TestStack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * Starts everything; `apiProcesses` API servers share the database (and so their rate limits).
 * `stop()` stops it all, in reverse order.
 */
export async function startTestStack({
  apiProcesses = 1,
  rateLimitPerMinute = 100,
  onApiOutput,
  nats: withNats = false,
}: {
  apiProcesses?: number;
  rateLimitPerMinute?: number;
  /** Every line the API (and worker) processes print: their JSON logs. */
  onApiOutput?: (line: string) => void;
  /**
   * Real NATS JetStream as the bus, with workers as processes of their own (`startWorker`); without
   * it the API processes use the in-process bus and run the workers themselves.
   */
  nats?: boolean;
} = {}) {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne().catch(() => {});
  };
  try {
    const anvil = await startTestAnvil();
    stops.push(anvil.stop);
    const postgres = await startTestPostgres();
    stops.push(postgres.stop);
    const deployment: Deployment = await deployMarketplace({
      rpcUrl: anvil.rpcUrl,
      deployerKey: devPrivateKey(0),
      authority: devAccount(0).address,
      feeRecipient: devAccount(1).address,
    });
    const ponder = await startTestPonder({
      rpcUrl: anvil.rpcUrl,
      databaseUrl: postgres.databaseUrl,
      deployment,
    });
    stops.push(ponder.stop);
    await migrateAppSchema(postgres.databaseUrl);
    const database = connectProjections(postgres.databaseUrl, ponder.viewsSchema);
    stops.push(database.close);

    let nats: TestNats | undefined;
    if (withNats) {
      nats = await startTestNats();
      stops.push(nats.stop);
    }
    const sharedEnv: Record<string, string> = {
      DATABASE_URL: postgres.databaseUrl,
      VIEWS_SCHEMA: ponder.viewsSchema,
      SEALING_KEY,
      DATA_DIR: join(ponder.deploymentFile, ".."),
      ...(nats ? { NATS_URL: nats.natsUrl } : {}),
    };

    const apis: Api[] = [];
    for (let i = 0; i < apiProcesses; i++) {
      const api = await startApi({
        port: await findFreePort(),
        env: {
          ...sharedEnv,
          RPC_URL: anvil.rpcUrl,
          DEPLOYMENT_FILE: ponder.deploymentFile,
          JWT_SECRET,
          RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute),
        },
        onOutput: onApiOutput,
      });
      stops.push(api.stop);
      apis.push(api);
    }

    /** A worker process consuming from NATS (only with `nats: true`); stopped with the stack. */
    async function startWorkerProcess(env: Record<string, string> = {}): Promise<Worker> {
      if (!nats) throw new Error("workers run as processes only with nats: true");
      const worker = await startWorker({ env: { ...sharedEnv, ...env }, onOutput: onApiOutput });
      stops.push(worker.stop);
      return worker;
    }

    const marketplace = connectMarketplace(anvil.rpcUrl, deployment.address);

    /**
     * Lists an agent the way a creator does: the registered agent's public manifest stored through
     * the registration code path, then `createListing` on-chain, then indexed.
     */
    async function publishListing(options: {
      creator: HDAccount;
      seed: string;
      model: number;
      price: bigint;
      manifest: Parameters<typeof saveAgent>[1]["publicManifest"];
    }): Promise<Hex> {
      const seed = seedOf(options.seed);
      const market = marketplace.as(options.creator);
      const onChainListingId = await market.read.deriveListingId([options.creator.address, seed]);
      await saveAgent(database.db, {
        agentId: `${options.manifest.name}-${onChainListingId.slice(2, 10)}`,
        onChainListingId,
        creator: options.creator.address,
        publicManifest: options.manifest,
        metadataUri: METADATA_URI,
      });
      const receipt = await marketplace.mined(
        market.write.createListing([seed, options.model, options.price, METADATA_URI]),
      );
      await ponder.waitForBlock(receipt.blockNumber);
      return onChainListingId;
    }

    return {
      anvil,
      postgres,
      nats,
      startWorker: startWorkerProcess,
      deployment,
      ponder,
      apis,
      api: apis[0] as Api,
      db: database.db,
      marketplace,
      publishListing,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
