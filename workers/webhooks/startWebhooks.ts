import { createPublicClient, http } from "viem";
import { backoffMs } from "../../lib/backoff.ts";
import { connectWithDeadlines, projectionsSchema } from "../../lib/db/projections.ts";
import { isUndefinedTable } from "../../lib/db/undefinedTable.ts";
import { NotReady, type ReadinessCheck } from "../../lib/health/readiness.ts";
import type { Logger } from "../../lib/log.ts";
import type { OutboundPolicy } from "../execution/outbound/outboundPolicy.ts";
import { createAlarm } from "../settlement/alarm.ts";
import { describeFailure } from "../settlement/describeFailure.ts";
import { startWebhookDelivery } from "./deliverWebhooks.ts";
import { followExpiring } from "./expiringFeed.ts";
import { followLowBalances } from "./lowBalancesFeed.ts";
import { followPurchases } from "./purchasesFeed.ts";
import type { WebhookSettings } from "./webhookSettings.ts";

export type WebhookOptions = WebhookSettings & {
  databaseUrl: string;
  rpcUrl: string;
  sealingKey: Uint8Array;
  policy: OutboundPolicy;
  log: Logger;
  /** How often the projections are looked at for purchases and debits. */
  feedPollMs?: number;
  /** How often subscriptions are looked at for expiries coming into the notice window. */
  expiringScanMs?: number;
};

/** Waits on Postgres and the chain end within these: a stalled dependency fails a step, no more. */
const DATABASE_DEADLINES = {
  size: 4,
  silenceMs: 1_500,
  probeMs: 500,
  statementTimeoutMs: 5_000,
  idleInTransactionMs: 10_000,
};
const CHAIN_READ_TIMEOUT_MS = 2_000;

/**
 * Webhooks in this process: the followers of the projections, which enqueue `listing.purchased`,
 * `credential.low_balance` and `credential.expiring` (runs' events are enqueued by the run ledger's
 * transactions, `listing.reviewed` by the review's), and the delivery loop. Every process that runs
 * the workers starts it; each follower and each delivery is worked by one process at a time.
 * `alive` fails readiness when either loop has not come round within its bound: it never stalls
 * unseen.
 */
export function startWebhooks({
  databaseUrl,
  rpcUrl,
  sealingKey,
  policy,
  log,
  retryBaseMs,
  attemptTimeoutMs,
  feedPollMs = 500,
  expiringScanMs = 10_000,
}: WebhookOptions): { stop: () => Promise<void>; alive: ReadinessCheck } {
  const database = connectWithDeadlines(databaseUrl, projectionsSchema(), {
    ...DATABASE_DEADLINES,
    applicationName: `webhooks ${process.pid}`,
  });
  const { db } = database;
  const chain = createPublicClient({
    transport: http(rpcUrl, { timeout: CHAIN_READ_TIMEOUT_MS, retryCount: 0 }),
  });
  const delivery = startWebhookDelivery({
    db,
    sealingKey,
    outbound: { policy },
    log,
    retryBaseMs,
    attemptTimeoutMs,
  });

  let running = true;
  const idle = createAlarm();
  let followedAt = Date.now();
  let scannedAt = 0;
  let viewsSeen = false;
  async function followOnce() {
    let enqueued = (await followPurchases(db)) + (await followLowBalances(db));
    if (Date.now() - scannedAt >= expiringScanMs) {
      // Set first: a chain that does not answer is asked again at the next scan, not at each step.
      scannedAt = Date.now();
      const head = await chain.getBlock({ blockTag: "latest" });
      enqueued += await followExpiring(db, head.timestamp);
    }
    viewsSeen = true;
    if (enqueued > 0) delivery.wake();
  }
  const feeds = (async () => {
    let failures = 0;
    while (running) {
      try {
        await followOnce();
        failures = 0;
      } catch (error) {
        // Before the indexer has made its views there is nothing to follow.
        if (viewsSeen || !isUndefinedTable(error)) {
          failures += 1;
          // A chain client's full message quotes its URL, which may carry a provider's key.
          log.warn("could not follow the projections for webhooks; trying again", {
            error: describeFailure(error),
            attempt: failures,
          });
        }
      }
      followedAt = Date.now();
      await idle.sleep(backoffMs(failures, { baseMs: feedPollMs, maxMs: 5_000 }));
    }
  })();

  const stallMs = Math.max(30_000, 3 * attemptTimeoutMs);
  return {
    alive: async () => {
      const quiet = Date.now() - Math.min(followedAt, delivery.passedAt());
      if (quiet > stallMs) throw new NotReady(`webhooks have not come round for ${quiet} ms`);
    },
    stop: async () => {
      running = false;
      idle.ring();
      await feeds;
      await delivery.stop();
      await database.close();
    },
  };
}
