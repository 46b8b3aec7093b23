// The marketplace for tests and benchmarks: the parts asked for, each real, on free loopback ports and
// in temp dirs of their own, started concurrently where they do not depend on each other.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { type PublicManifest, saveAgent } from "../lib/agents/saveAgent.ts";
import { type Deployment, deployMarketplace } from "../lib/chain/deployMarketplace.ts";
import { writeDeployment } from "../lib/chain/deploymentFile.ts";
import { localDeploymentAccounts } from "../lib/chain/devAccounts.ts";
import { migrateAppSchema } from "../lib/db/migrateAppSchema.ts";
import { connectProjections, type Database } from "../lib/db/projections.ts";
import { agentIdOf } from "../lib/ids/agentId.ts";
import { startOnFreePort } from "./findFreePort.ts";
import {
  connectMarketplace,
  type MarketplaceConnection,
  METADATA_URI,
  seedOf,
} from "./marketplace.ts";
import { type Anvil, startAnvil } from "./startAnvil.ts";
import { type Api, startApi } from "./startApi.ts";
import { type Ponder, startPonder } from "./startPonder.ts";
import { type Postgres, startPostgres } from "./startPostgres.ts";
import { startTestNats, type TestNats } from "./startTestNats.ts";
import { startWorker, type Worker } from "./startWorker.ts";
import { makeTempDir } from "./tempDir.ts";

/** The key API processes sign wallet JWTs with, so tests can forge and inspect tokens. */
export const JWT_SECRET = randomBytes(32).toString("hex");
/** The key API and worker processes seal prompts and credentials with. */
export const SEALING_KEY = randomBytes(32).toString("hex");

export type StackOptions = {
  /** anvil with the marketplace deployed (default true). */
  chain?: boolean;
  /** anvil mines a block every this many seconds instead of one per transaction (default: automine). */
  blockTimeSeconds?: number;
  /** anvil's safe block lags its latest by this many blocks, its finalized block by twice as many (default: anvil's 32). */
  slotsInAnEpoch?: number;
  /** An ephemeral Postgres cluster with the `app` schema migrated (default true). */
  postgres?: boolean;
  /**
   * Ponder indexing the marketplace into Postgres (default: when there is an API), restarted when it
   * stalls; `{ supervised: false }` leaves a crash of it to the caller.
   */
  ponder?: boolean | { supervised: false };
  /**
   * NATS JetStream as the bus; without it, API processes run the workers in-process. `{ cluster: 3 }`
   * runs a cluster of 3 servers, and the bus keeps 3 copies of each stream (NATS_STREAM_REPLICAS).
   * `{ password: true }`: clients must give a user and a random password, which NATS_URL carries.
   */
  nats?: boolean | { cluster?: number; password?: boolean };
  /** API processes sharing the database (default 0). */
  api?: number;
  /** Worker processes consuming from NATS (default 0; needs `nats`). */
  workers?: number;
  /** Requests per minute per caller in the API processes (default 100). */
  rateLimitPerMinute?: number;
  /** Sign-in requests per minute per address in the API processes (default: `rateLimitPerMinute`). */
  authRateLimitPerMinute?: number;
  /** Environment for every API and worker process, over the stack's own. */
  env?: Record<string, string>;
  /** Every line every process prints (anvil, Postgres, NATS, Ponder, API, workers); STACK_VERBOSE=1 also copies it to stderr. */
  onOutput?: (line: string) => void;
};

export type Stack = Awaited<ReturnType<typeof startStack>>;

export type IndexerOptions = {
  schema?: string;
  supervised?: boolean;
  viewsSchema?: string;
  /** Another database of the stack's cluster, for a Ponder with a sync cache of its own. */
  databaseUrl?: string;
};

/** The stable views schema the stack's Ponder keeps and its API and workers read. */
const VIEWS_SCHEMA = "marketplace";

/**
 * Like `Promise.all`, but settles only once every start has, so that a failure is raised after every
 * part that did start is registered to be stopped.
 */
async function allStarted<T extends readonly unknown[]>(
  starts: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(starts);
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/** Starts what `options` asks for; `stop()` stops it all in reverse order, whatever failed. */
export async function startStack(options: StackOptions = {}) {
  const {
    chain: withChain = true,
    postgres: withPostgres = true,
    api: apiProcesses = 0,
    ponder: withPonder = apiProcesses > 0,
    nats: withNats = false,
    workers = 0,
    rateLimitPerMinute = 100,
    authRateLimitPerMinute = rateLimitPerMinute,
  } = options;
  const verbose = process.env.STACK_VERBOSE
    ? (line: string) => process.stderr.write(line)
    : undefined;
  const onOutput =
    options.onOutput && verbose
      ? (line: string) => {
          options.onOutput?.(line);
          verbose(line);
        }
      : (options.onOutput ?? verbose);

  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    // Stop everything even when one part fails to stop; say which did.
    for (const stopOne of stops.splice(0).reverse()) {
      await stopOne().catch((error: unknown) => console.error("a stack part did not stop:", error));
    }
  };
  const temp = await makeTempDir("stack");
  stops.push(temp.remove);

  try {
    const [chain, postgres, nats] = await allStarted([
      withChain ? startChain() : undefined,
      withPostgres ? startDatabase() : undefined,
      withNats ? startStackNats() : undefined,
    ] as const);
    const need = <T>(part: T | undefined, name: string): T => {
      if (part === undefined) throw new Error(`the stack was started without ${name}`);
      return part;
    };

    async function startChain() {
      const anvil = await startOnFreePort((port) =>
        startAnvil({
          port,
          blockTimeSeconds: options.blockTimeSeconds,
          slotsInAnEpoch: options.slotsInAnEpoch,
          onOutput,
        }),
      );
      stops.push(anvil.stop);
      const deployment = await deployMarketplace({
        rpcUrl: anvil.rpcUrl,
        ...localDeploymentAccounts(),
      });
      const deploymentFile = join(temp.dir, "deployment.json");
      await writeDeployment(deploymentFile, deployment);
      return { anvil, deployment, deploymentFile };
    }

    async function startDatabase() {
      const postgres = await startOnFreePort((port) =>
        startPostgres({ port, dataDir: join(temp.dir, "postgres"), ephemeral: true, onOutput }),
      );
      stops.push(postgres.stop);
      await migrateAppSchema(postgres.databaseUrl);
      return postgres;
    }

    async function startStackNats(): Promise<TestNats> {
      const { cluster: count = 1, password = false } = typeof withNats === "object" ? withNats : {};
      const nats = await startTestNats({ count, password, dir: temp.dir, onOutput });
      stops.push(nats.stop);
      return nats;
    }

    /**
     * Another Ponder over the stack's chain and database. The same `schema` again resumes that
     * index (crash recovery); by default each indexes into a schema of its own. It resolves at
     * `/ready`; wait for a block (`waitForBlock`) before reading what it holds.
     */
    async function startIndexer({
      schema,
      supervised,
      viewsSchema = VIEWS_SCHEMA,
      databaseUrl,
    }: IndexerOptions = {}) {
      const { anvil, deploymentFile } = need(chain, "a chain");
      const indexSchema = schema ?? `indexer_${randomBytes(4).toString("hex")}`;
      const ponder = await startOnFreePort((port) =>
        startPonder({
          port,
          databaseUrl: databaseUrl ?? need(postgres, "Postgres").databaseUrl,
          rpcUrl: anvil.rpcUrl,
          deploymentFile,
          schema: indexSchema,
          viewsSchema,
          supervised,
          onOutput,
        }),
      );
      stops.push(ponder.stop);
      return { ...ponder, schema: indexSchema, viewsSchema };
    }

    const database = postgres ? connectProjections(postgres.databaseUrl, VIEWS_SCHEMA) : undefined;
    if (database) stops.push(database.close);

    const processEnv = (): Record<string, string> => ({
      DATABASE_URL: need(postgres, "Postgres").databaseUrl,
      VIEWS_SCHEMA,
      SEALING_KEY,
      DATA_DIR: temp.dir,
      ...(nats ? { NATS_URL: nats.natsUrl, NATS_STREAM_REPLICAS: String(nats.replicas) } : {}),
    });

    /**
     * One more API process; with NATS it serves alone, without it runs the workers too.
     * `onApiOutput` hears what this process alone prints (as well as the stack's `onOutput`).
     */
    /** Every API process, those started with the stack first. */
    const apisAdded: Api[] = [];
    async function addApi(
      env: Record<string, string> = {},
      onApiOutput?: (line: string) => void,
    ): Promise<Api> {
      const { anvil, deploymentFile } = need(chain, "a chain");
      const api = await startOnFreePort((port) =>
        startApi({
          port,
          env: {
            ...processEnv(),
            RPC_URL: anvil.rpcUrl,
            DEPLOYMENT_FILE: deploymentFile,
            JWT_SECRET,
            RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute),
            AUTH_RATE_LIMIT_PER_MINUTE: String(authRateLimitPerMinute),
            // Tests register many agents per wallet; the quotas are tested apart, with their defaults.
            REGISTRATIONS_QUEUED_PER_WALLET: "100000",
            UNLISTED_AGENTS_PER_WALLET: "100000",
            ...options.env,
            ...env,
          },
          onOutput: (line) => {
            onApiOutput?.(line);
            onOutput?.(line);
          },
        }),
      );
      stops.push(api.stop);
      apisAdded.push(api);
      return api;
    }

    /**
     * One more worker process consuming from NATS; stopped with the stack. `script` runs another
     * composition of the workers than workers/main.ts (say, with agents scripted by a test, which
     * needs no chain: workers/main.ts settles runs, and needs one).
     */
    async function addWorker(env: Record<string, string> = {}, script?: string): Promise<Worker> {
      need(nats, "NATS");
      if (script === undefined) need(chain, "a chain");
      const worker = await startWorker({
        env: {
          ...processEnv(),
          ...(chain && { RPC_URL: chain.anvil.rpcUrl, DEPLOYMENT_FILE: chain.deploymentFile }),
          ...options.env,
          ...env,
        },
        onOutput,
        script,
      });
      stops.push(worker.stop);
      return worker;
    }

    // An API process reads the indexer's views from its start (it follows listed versions, see
    // api/listings/followListedVersions.ts): it starts once Ponder has made them, at /ready. The
    // workers need them only to run, not to start: they start with Ponder.
    const ponderStarted = withPonder
      ? startIndexer(typeof withPonder === "object" ? withPonder : {})
      : undefined;
    const [ponder, apis, workerProcesses] = await allStarted([
      ponderStarted,
      (async () => {
        await ponderStarted;
        return allStarted(Array.from({ length: apiProcesses }, () => addApi()));
      })(),
      allStarted(Array.from({ length: workers }, () => addWorker())),
    ] as const);
    const marketplace = chain
      ? connectMarketplace(chain.anvil.rpcUrl, chain.deployment.address)
      : undefined;

    /**
     * Lists an agent the way a creator does: its public manifest stored through the registration
     * code path, then `createListing` on-chain, then indexed. Returns the on-chain listing id.
     */
    async function publishListing(listing: {
      creator: HDAccount;
      seed: string;
      model: number;
      price: bigint;
      manifest: PublicManifest;
    }): Promise<Hex> {
      const seed = seedOf(listing.seed);
      const market = need(marketplace, "a chain").as(listing.creator);
      const onChainListingId = await market.read.deriveListingId([listing.creator.address, seed]);
      await saveAgent(need(database, "Postgres").db, {
        agentId: agentIdOf(listing.manifest.name, onChainListingId),
        onChainListingId,
        creator: listing.creator.address,
        publicManifest: listing.manifest,
        metadataUri: METADATA_URI,
      });
      const receipt = await need(marketplace, "a chain").mined(
        market.write.createListing([seed, listing.model, listing.price, METADATA_URI]),
      );
      await need(ponder, "Ponder").waitForBlock(receipt.blockNumber);
      return onChainListingId;
    }

    return {
      dir: temp.dir,
      get anvil(): Anvil {
        return need(chain, "a chain").anvil;
      },
      get deployment(): Deployment {
        return need(chain, "a chain").deployment;
      },
      get deploymentFile(): string {
        return need(chain, "a chain").deploymentFile;
      },
      get marketplace(): MarketplaceConnection {
        return need(marketplace, "a chain");
      },
      get postgres(): Postgres {
        return need(postgres, "Postgres");
      },
      get db(): Database {
        return need(database, "Postgres").db;
      },
      get ponder(): Ponder & { schema: string; viewsSchema: string } {
        return need(ponder, "Ponder");
      },
      get nats(): TestNats {
        return need(nats, "NATS");
      },
      /** The first API process: one started with the stack, or else the first added. */
      get api(): Api {
        return need(apis[0] ?? apisAdded[0], "an API");
      },
      apis,
      /** The worker processes started with the stack (`workers`), e.g. to kill or pause one. */
      workers: workerProcesses,
      startIndexer,
      addApi,
      addWorker,
      publishListing,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
