// Starts real servers for tests, each on a free loopback port in a temp dir of its own.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findFreePort } from "../../devStack/findFreePort.ts";
import { type Anvil, startAnvil } from "../../devStack/startAnvil.ts";
import { type Nats, startNats } from "../../devStack/startNats.ts";
import { type Ponder, startPonder } from "../../devStack/startPonder.ts";
import { type Postgres, startPostgres } from "../../devStack/startPostgres.ts";
import type { Deployment } from "../../lib/chain/deployMarketplace.ts";
import { writeDeployment } from "../../lib/chain/deploymentFile.ts";

// HARNESS_VERBOSE=1 shows what the servers print.
const onOutput = process.env.HARNESS_VERBOSE
  ? (line: string) => process.stderr.write(line)
  : undefined;

async function withTempDir<T extends { stop: () => Promise<void> }>(
  prefix: string,
  start: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `marketplace-${prefix}-`));
  try {
    const service = await start(dir);
    return {
      ...service,
      stop: async () => {
        await service.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

export async function startTestAnvil(): Promise<Anvil> {
  return startAnvil({ port: await findFreePort(), onOutput });
}

export async function startTestPostgres(): Promise<Postgres> {
  const port = await findFreePort();
  return withTempDir("postgres", (dataDir) =>
    startPostgres({ port, dataDir, ephemeral: true, onOutput }),
  );
}

export type TestNats = Nats & {
  /** Stops the server but keeps its JetStream store, as an outage would. */
  stopServer: () => Promise<void>;
  /** Starts it again on the same port and store. */
  startServer: () => Promise<void>;
};

export async function startTestNats(): Promise<TestNats> {
  const [port, monitorPort] = [await findFreePort(), await findFreePort()];
  return withTempDir("nats", async (storeDir) => {
    const start = () => startNats({ port, monitorPort, storeDir, onOutput });
    let server: Nats | undefined = await start();
    return {
      natsUrl: server.natsUrl,
      stopServer: async () => {
        await server?.stop();
        server = undefined;
      },
      startServer: async () => {
        server ??= await start();
      },
      stop: async () => {
        await server?.stop();
      },
    };
  });
}

export type TestPonder = Ponder & { schema: string; viewsSchema: string; deploymentFile: string };

/**
 * Ponder indexing `deployment` on `rpcUrl` into `databaseUrl`. The same `schema` again resumes that
 * deployment (crash recovery); by default each call indexes into a schema of its own. It resolves at
 * `/ready`, when the finalized history is indexed; the latest 30 blocks follow, so wait for a block
 * (`waitForBlock`) before reading what it holds.
 */
export async function startTestPonder(options: {
  rpcUrl: string;
  databaseUrl: string;
  deployment: Deployment;
  schema?: string;
  viewsSchema?: string;
}): Promise<TestPonder> {
  const suffix = Math.random().toString(36).slice(2, 10);
  const schema = options.schema ?? `indexer_${suffix}`;
  const viewsSchema = options.viewsSchema ?? "marketplace";
  const port = await findFreePort();
  const ponder = await withTempDir("ponder", async (dir) => {
    const deploymentFile = join(dir, "deployment.json");
    await writeDeployment(deploymentFile, options.deployment);
    const started = await startPonder({
      port,
      databaseUrl: options.databaseUrl,
      rpcUrl: options.rpcUrl,
      deploymentFile,
      schema,
      viewsSchema,
      onOutput,
    });
    return { ...started, deploymentFile };
  });
  return { ...ponder, schema, viewsSchema };
}
