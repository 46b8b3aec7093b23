// What a process's readiness is made of: each check resolves when its dependency is ready and
// rejects, with a `NotReady` saying why, when it is not. `createReadiness` bounds each one's time.
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { createPublicClient, http } from "viem";
import type { Bus } from "../bus/bus.ts";
import { LOCAL_CHAIN_ID } from "../chain/devAccounts.ts";
import type { Database } from "../db/projections.ts";
import { NotReady, READY_CHECK_DEADLINE_MS, type ReadinessCheck } from "./readiness.ts";

/**
 * A head older than this, off the local chain, is a node that has stopped following its chain. The
 * local chain mines only when a transaction comes: its head may rightly be hours old.
 */
export const CHAIN_HEAD_MAX_AGE_SECONDS = 60;
/** The indexer may be behind the chain's head this long and the process still take traffic. */
export const INDEXER_READY_LAG_SECONDS = 30;
/** The indexer's supervisor records its progress twice a second: a record older than this is none. */
const INDEXER_CHECKED_WITHIN_MS = 10_000;

/** Postgres answered a query. */
export function postgresAnswers(db: Database): ReadinessCheck {
  return async () => {
    await db.execute(sql`select 1`);
  };
}

const migrationsFolder = fileURLToPath(new URL("../db/migrations", import.meta.url));

/** The `app` schema holds the newest migration this code knows (once seen, it stays applied). */
export function migrationsApplied(db: Database): ReadinessCheck {
  const newest = Math.max(...readMigrationFiles({ migrationsFolder }).map((m) => m.folderMillis));
  let applied = false;
  return async () => {
    if (applied) return;
    const [row] = await db.execute<{ latest: string | null }>(
      sql`select max(created_at)::text as latest from drizzle.__drizzle_migrations`,
    );
    if (Number(row?.latest ?? 0) < newest) throw new NotReady("migrations not applied");
    applied = true;
  };
}

/** The chain's node gave its head, and off the local chain one fresher than the bound. */
export function chainHeadFresh(rpcUrl: string, chainId: number): ReadinessCheck {
  const client = createPublicClient({
    transport: http(rpcUrl, { timeout: READY_CHECK_DEADLINE_MS, retryCount: 0 }),
  });
  return async () => {
    const head = await client.getBlock({ blockTag: "latest" });
    const ageSeconds = Math.floor(Date.now() / 1000) - Number(head.timestamp);
    if (chainId !== LOCAL_CHAIN_ID && ageSeconds > CHAIN_HEAD_MAX_AGE_SECONDS) {
      throw new NotReady(`the head is ${ageSeconds} s old`);
    }
  };
}

/** The indexer's lag as `app.indexer_progress` records it (`GET /v1/indexer`). */
type IndexerLag = { behind_seconds: number | null; checked_at: string | null };

/** The indexer's supervisor checked lately, and found the indexer within its lag bound. */
export function indexerWithinLag(readLag: () => Promise<IndexerLag>): ReadinessCheck {
  return async () => {
    const lag = await readLag();
    const checkedAt = lag.checked_at ? Date.parse(lag.checked_at) : 0;
    if (Date.now() - checkedAt > INDEXER_CHECKED_WITHIN_MS) {
      throw new NotReady("the indexer's progress is not being recorded");
    }
    if (lag.behind_seconds === null) throw new NotReady("the indexer's lag is unknown");
    if (lag.behind_seconds > INDEXER_READY_LAG_SECONDS) {
      throw new NotReady(`the indexer is ${lag.behind_seconds} s behind`);
    }
  };
}

/** The bus's broker answered a round trip. */
export function busAnswers(bus: Bus): ReadinessCheck {
  return () => bus.ping();
}

/** Every consumer of this process takes messages, and the broker holds it. */
export function consumersBound(bus: Bus): ReadinessCheck {
  return async () => {
    const consumers = await bus.consumers();
    if (consumers.length === 0) throw new NotReady("no consumers");
    const unbound = consumers.filter(({ bound }) => !bound).map(({ group }) => group);
    if (unbound.length > 0) throw new NotReady(`not bound: ${unbound.join(", ")}`);
  };
}
