// The application on top of bench/common.ts's stack, for the API and registration benchmarks: the API
// as a process of its own (as in production), API keys, published listings, a load generator.
// Mirrors test/harness/stack.ts without importing from test/ (which pulls in vitest).
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { type Address, encodeFunctionData, type Hex, toHex } from "viem";
import { findFreePort } from "../devStack/findFreePort.ts";
import { spawnService, waitUntilReady } from "../devStack/spawnService.ts";
import { type Api, startApi } from "../devStack/startApi.ts";
import { saveAgent } from "../lib/agents/saveAgent.ts";
import { serviceMarketplaceAbi } from "../lib/contracts/serviceMarketplace.ts";
import type { Database } from "../lib/db/projections.ts";
import { type Cleanup, METADATA_URI, percentile, rpcRequest, type Stack } from "./common.ts";

/** Removes `dir` when the process exits, however it does, even when its cleanup steps did not run. */
export function removeOnExit(dir: string) {
  process.once("exit", () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
}

/** Effectively no rate limit: the benchmarks measure the API, not its refusals. */
export const UNLIMITED_RATE = "1000000000";

export const SEALING_KEY = randomBytes(32).toString("hex");
export const JWT_SECRET = randomBytes(32).toString("hex");

const verbose = Boolean(process.env.BENCH_VERBOSE);

/** The API (`api/server.ts`) as its own process on a free port; stopped by `cleanup`. */
export async function startBenchApi(
  cleanup: Cleanup,
  stack: Stack,
  options: { viewsSchema: string; natsUrl?: string; onOutput?: (line: string) => void },
): Promise<Api> {
  const api = await startApi({
    port: await findFreePort(),
    env: {
      DATABASE_URL: stack.pg.databaseUrl,
      RPC_URL: stack.anvil.rpcUrl,
      DEPLOYMENT_FILE: stack.deploymentFile,
      VIEWS_SCHEMA: options.viewsSchema,
      JWT_SECRET,
      RATE_LIMIT_PER_MINUTE: UNLIMITED_RATE,
      SEALING_KEY,
      DATA_DIR: stack.dir,
      ...(options.natsUrl ? { NATS_URL: options.natsUrl } : {}),
    },
    onOutput: (line) => {
      options.onOutput?.(line);
      if (verbose) process.stderr.write(line);
    },
  });
  cleanup.add("api", () => api.stop());
  return api;
}

/** bench/helloServer.ts as a process of its own: the framework's ceiling. */
export async function startHelloServer(cleanup: Cleanup): Promise<{ url: string }> {
  const port = await findFreePort();
  const script = fileURLToPath(new URL("./helloServer.ts", import.meta.url));
  const { child, service } = spawnService(process.execPath, [script], {
    env: { ...process.env, PORT: String(port) },
    onOutput: verbose ? (line) => process.stderr.write(line) : undefined,
  });
  cleanup.add("hello-world server", () => service.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady("hello-world server", () => fetch(url), { child });
  return { url };
}

export const marketplaceCall = (functionName: string, args: readonly unknown[]) =>
  encodeFunctionData({ abi: serviceMarketplaceAbi, functionName, args } as never) as Hex;

/** Sends from an unlocked or impersonated account and waits for a successful receipt. */
export async function sendTransaction(
  stack: Stack,
  from: Address,
  data: Hex,
  value = 0n,
): Promise<bigint> {
  const rpcUrl = stack.anvil.rpcUrl;
  const hash = (await rpcRequest(rpcUrl, "eth_sendTransaction", [
    { from, to: stack.deployment.address, data, value: toHex(value), gas: toHex(1_000_000) },
  ])) as Hex;
  for (;;) {
    const receipt = (await rpcRequest(rpcUrl, "eth_getTransactionReceipt", [hash])) as {
      status: Hex;
      blockNumber: Hex;
    } | null;
    if (receipt) {
      if (receipt.status !== "0x1") throw new Error(`transaction ${hash} reverted`);
      return BigInt(receipt.blockNumber);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Lists an agent the way a creator does (as test/harness/stack.ts publishListing): the public
 * manifest stored through the registration code path, then `createListing` on-chain. Not indexed
 * yet: the caller waits for Ponder. Returns the mined block.
 */
export async function publishListing(
  stack: Stack,
  db: Database,
  listing: {
    creator: Address;
    seed: Hex;
    onChainListingId: Hex;
    model: number;
    price: bigint;
    manifest: Parameters<typeof saveAgent>[1]["publicManifest"];
  },
): Promise<bigint> {
  await saveAgent(db, {
    agentId: `${listing.manifest.name}-${listing.onChainListingId.slice(2, 10)}`,
    onChainListingId: listing.onChainListingId,
    creator: listing.creator,
    publicManifest: listing.manifest,
    metadataUri: METADATA_URI,
  });
  return sendTransaction(
    stack,
    listing.creator,
    marketplaceCall("createListing", [listing.seed, listing.model, listing.price, METADATA_URI]),
  );
}

// ─── Load ───────────────────────────────────────────────────────────────────

export type LoadResult = {
  concurrency: number;
  /** Requests started inside the measured window that answered as expected. */
  ok: number;
  /** Every request answered, warm-up included: the denominator for CPU per request. */
  answered: number;
  /** Requests started inside the measured window that did not (wrong status, socket error). */
  errors: number;
  firstError?: string;
  seconds: number;
  requestsPerSecond: number;
  latencyMs: number[];
};

/**
 * Closed-loop load: `concurrency` clients, each with a keep-alive connection of its own (node:http,
 * one Agent with that many sockets), sending GET `url` back to back for `warmUpMs` + `measureMs`.
 * Only requests started after the warm-up count; latency is send to last body byte.
 */
export async function runLoad(options: {
  url: string;
  headers?: Record<string, string>;
  concurrency: number;
  warmUpMs: number;
  measureMs: number;
  expectStatus?: number;
}): Promise<LoadResult> {
  const { concurrency, warmUpMs, measureMs } = options;
  const expected = options.expectStatus ?? 200;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(options.url);
  const latencyMs: number[] = [];
  let errors = 0;
  let answered = 0;
  let firstError: string | undefined;

  const once = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: "GET",
          headers: options.headers,
        },
        (response) => {
          response.on("data", () => {});
          response.on("end", () => resolve(response.statusCode ?? 0));
          response.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });

  const started = performance.now();
  const measureFrom = started + warmUpMs;
  const end = measureFrom + measureMs;
  const client = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      let failure: string | undefined;
      try {
        const status = await once();
        if (status !== expected) failure = `status ${status}`;
      } catch (error) {
        failure = String(error);
      }
      const received = performance.now();
      answered++;
      if (sent < measureFrom) continue;
      if (failure === undefined) latencyMs.push(received - sent);
      else {
        errors++;
        firstError ??= failure;
        // A refusing server answers at once: do not spin.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  agent.destroy();
  const seconds = measureMs / 1000;
  return {
    concurrency,
    ok: latencyMs.length,
    answered,
    errors,
    firstError,
    seconds,
    requestsPerSecond: latencyMs.length / seconds,
    latencyMs,
  };
}

/** p50, p95, p99 of `samples`. */
export function tail(samples: number[]): [number, number, number] {
  return [percentile(samples, 50), percentile(samples, 95), percentile(samples, 99)];
}

// ─── Postgres activity ──────────────────────────────────────────────────────

export type PgActivity = {
  samples: number;
  /** Mean number of the application's backends running a statement. */
  meanActive: number;
  /** Of those backend-samples, the share waiting on a heavyweight lock (row or transaction lock). */
  lockShare: number;
  /** The most frequent wait events of active backends, e.g. "Lock:transactionid 42%". */
  topWaits: string;
  /** The statements seen waiting on a heavyweight lock, most frequent first, with their counts. */
  lockedStatements: [string, number][];
};

/**
 * Samples pg_stat_activity every `intervalMs` for the backends of postgres.js clients (the API's
 * and the workers' pools; Ponder uses another driver) until `stop()`.
 */
export function samplePgActivity(databaseUrl: string, intervalMs = 25) {
  const sql = postgres(databaseUrl, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: "bench-sampler" },
  });
  let running = true;
  let samples = 0;
  let active = 0;
  const waits = new Map<string, number>();
  const locked = new Map<string, number>();
  const loop = (async () => {
    while (running) {
      // Sampling ends quietly when Postgres goes away under it (Ctrl-C stops services meanwhile).
      const rows = await sql<{ wait: string | null; statement: string }[]>`
        select wait_event_type || ':' || wait_event as wait,
          regexp_replace(left(query, 80), '\\s+', ' ', 'g') as statement
        from pg_stat_activity
        where application_name = 'postgres.js' and state = 'active'`.catch(() => undefined);
      if (!rows) break;
      samples++;
      active += rows.length;
      for (const { wait, statement } of rows) {
        const name = wait ?? "CPU (no wait)";
        waits.set(name, (waits.get(name) ?? 0) + 1);
        if (name.startsWith("Lock:")) locked.set(statement, (locked.get(statement) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    stop: async (): Promise<PgActivity> => {
      running = false;
      await loop;
      await sql.end().catch(() => {});
      const locks = [...waits].filter(([name]) => name.startsWith("Lock:"));
      const lockCount = locks.reduce((sum, [, count]) => sum + count, 0);
      return {
        samples,
        meanActive: samples ? active / samples : 0,
        lockShare: active ? lockCount / active : 0,
        topWaits: [...waits]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([name, count]) => `${name} ${Math.round((100 * count) / active)}%`)
          .join(", "),
        lockedStatements: [...locked].sort((a, b) => b[1] - a[1]),
      };
    },
  };
}
