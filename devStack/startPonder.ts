import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chainHead, databasePinger, ponderIndexedBlock } from "../indexer/indexerReads.ts";
import { indexerDatabaseUrl } from "../indexer/indexerRole.ts";
import { indexerProgressRecorder } from "../indexer/recordIndexerProgress.ts";
import { releaseSchemaLock } from "../indexer/releaseSchemaLock.ts";
import {
  INDEXER_CHECK_EVERY_MS,
  INDEXER_SILENCE_MS,
  INDEXER_STALL_AFTER_SILENCE_MS,
  INDEXER_STALL_MS,
  INDEXER_UNANSWERED_MS,
  watchIndexer,
} from "../indexer/watchIndexer.ts";
import { createLogger } from "../lib/log.ts";
import { killGroup, type Service, spawnService, waitUntilReady } from "./spawnService.ts";

export type Ponder = Service & {
  url: string;
  /** Resolves once the projections include block `blockNumber`. */
  waitForBlock: (blockNumber: bigint | number, timeoutMs?: number) => Promise<void>;
  /** Sends `signal` to Ponder's process group, e.g. SIGKILL to simulate a crash. */
  kill: (signal: NodeJS.Signals) => void;
};

export type PonderOptions = {
  port: number;
  /** An admin's: Ponder itself connects as the indexer's role (`indexer/indexerRole.ts`). */
  databaseUrl: string;
  rpcUrl: string;
  deploymentFile: string;
  /** The schema this build indexes into. */
  schema: string;
  /** The stable schema of views other processes read. */
  viewsSchema: string;
  /**
   * Restart Ponder when it stands still behind the chain's head, and record its progress for the
   * API (default true). Off where the caller crashes and recovers it on purpose.
   */
  supervised?: boolean;
  /** How often it asks the chain for its latest block (default: `PONDER_POLLING_INTERVAL_MS`'s). */
  pollingIntervalMs?: number;
  /** How often the supervisor compares it with the chain's head (default `INDEXER_CHECK_EVERY_MS`). */
  checkEveryMs?: number;
  /** Ponder's own log level (`PONDER_LOG_LEVEL`; default Ponder's, info). */
  logLevel?: "error" | "warn" | "info" | "debug" | "trace";
  /** Flags for its Node process (e.g. heap sizes). */
  nodeFlags?: string[];
  onOutput?: (line: string) => void;
};

/**
 * A stalled Ponder is killed at once: its graceful shutdown waits on the stuck request queue that
 * stalled it (up to 15 s), and what it would do on the way out, release its schema's lock, the
 * supervisor does.
 */
const STALLED_STOP_GRACE_MS = 0;
/** How long a restart tries to release the stopped Ponder's schema lock, while Postgres does not answer. */
const LOCK_RELEASE_DEADLINE_MS = 30_000;
const LOCK_RELEASE_RETRY_MS = 500;

const projectRoot = fileURLToPath(new URL("..", import.meta.url));
const ponderBin = fileURLToPath(
  new URL("../node_modules/ponder/dist/esm/bin/ponder.js", import.meta.url),
);

/**
 * Runs `ponder start` and resolves once its backfill is done (`/ready` answers 200); supervised, it
 * is restarted whenever it stalls (`indexer/watchIndexer.ts`).
 */
export async function startPonder(options: PonderOptions): Promise<Ponder> {
  const url = `http://127.0.0.1:${options.port}`;
  const ponderDatabaseUrl = await indexerDatabaseUrl(options.databaseUrl, options);
  const spawnReady = () => spawnReadyPonder(options, ponderDatabaseUrl, url);
  let current = await spawnReady();
  const supervision =
    options.supervised === false ? undefined : superviseIndexer(options, url, restart);

  async function restart() {
    const stopping = Date.now();
    await current.service.stop(STALLED_STOP_GRACE_MS);
    supervision?.log.info("indexer stopped", { stop_ms: Date.now() - stopping });
    await releaseLockOfStopped();
    current = await spawnReady();
  }

  /**
   * The process that held the schema's lock has exited, so releasing it cannot let two Ponders into
   * one schema; left to expire, it would hold the new start for Ponder's heartbeat timeout. Tried
   * again until Postgres answers, within a deadline.
   */
  async function releaseLockOfStopped() {
    const giveUpAt = Date.now() + LOCK_RELEASE_DEADLINE_MS;
    for (;;) {
      try {
        return await releaseSchemaLock(options.databaseUrl, options.schema);
      } catch (error) {
        if (Date.now() >= giveUpAt) {
          supervision?.log.warn("indexer schema lock not released", {
            reason: (error as { code?: string }).code ?? (error as Error).name,
          });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, LOCK_RELEASE_RETRY_MS));
      }
    }
  }

  const waitForBlock = (blockNumber: bigint | number, timeoutMs = 30_000) =>
    waitUntilReady(
      `ponder indexing block ${blockNumber}`,
      async () => {
        const status = (await (await fetch(`${url}/status`)).json()) as Record<
          string,
          { block: { number: number } }
        >;
        const indexed = Object.values(status)[0]?.block.number ?? -1;
        if (indexed < Number(blockNumber)) throw new Error(`indexed through ${indexed}`);
      },
      { timeoutMs },
    );
  return {
    url,
    waitForBlock,
    kill: (signal) => killGroup(current.child, signal),
    stop: async () => {
      await supervision?.stop();
      await current.service.stop();
    },
  };
}

async function spawnReadyPonder(
  options: PonderOptions,
  databaseUrl: string,
  url: string,
): Promise<{ child: ChildProcess; service: Service }> {
  const args = [
    ...(options.nodeFlags ?? []),
    ponderBin,
    "start",
    ...["--schema", options.schema, "--views-schema", options.viewsSchema],
    ...["--port", String(options.port), "--hostname", "127.0.0.1"],
  ];
  const started = spawnService(process.execPath, args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      RPC_URL: options.rpcUrl,
      DEPLOYMENT_FILE: options.deploymentFile,
      PONDER_TELEMETRY_DISABLED: "true",
      ...(options.pollingIntervalMs && {
        PONDER_POLLING_INTERVAL_MS: String(options.pollingIntervalMs),
      }),
      ...(options.logLevel && { PONDER_LOG_LEVEL: options.logLevel }),
    },
    onOutput: options.onOutput,
  });
  await waitUntilReady(
    "ponder",
    async () => {
      const response = await fetch(`${url}/ready`);
      if (response.status !== 200) throw new Error(`/ready answered ${response.status}`);
    },
    { child: started.child, timeoutMs: 120_000, ports: [options.port] },
  );
  return started;
}

function superviseIndexer(options: PonderOptions, url: string, restart: () => Promise<void>) {
  const log = createLogger("indexer-supervisor", options.onOutput);
  const recorder = indexerProgressRecorder(options.databaseUrl, options.viewsSchema, log);
  const database = databasePinger(options.databaseUrl);
  const watch = watchIndexer({
    readChainHead: () => chainHead(options.rpcUrl),
    readIndexedBlock: () => ponderIndexedBlock(url),
    pingDatabase: database.ping,
    restart,
    onProgress: recorder.record,
    log,
    checkEveryMs: options.checkEveryMs ?? INDEXER_CHECK_EVERY_MS,
    stallMs: INDEXER_STALL_MS,
    silenceMs: INDEXER_SILENCE_MS,
    stallAfterSilenceMs: INDEXER_STALL_AFTER_SILENCE_MS,
    unansweredMs: INDEXER_UNANSWERED_MS,
  });
  return {
    log,
    stop: async () => {
      await watch.stop();
      await Promise.all([recorder.close(), database.close()]);
    },
  };
}
