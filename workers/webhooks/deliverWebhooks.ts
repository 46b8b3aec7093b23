import { backoffMs } from "../../lib/backoff.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { webhookDeliveries } from "../../lib/metrics/metrics.ts";
import { metricsOn } from "../../lib/metrics/metricsOn.ts";
import { openEndpointSecret } from "../../lib/webhooks/endpointSecret.ts";
import type { GuardedPostOptions } from "../execution/outbound/guardedPost.ts";
import { createAlarm } from "../settlement/alarm.ts";
import { type ClaimedDelivery, claimDeliveries } from "./claimDeliveries.ts";
import { deliveryBody, deliveryData } from "./deliveryData.ts";
import { sendDelivery } from "./sendDelivery.ts";
import { releaseClaim, type Settled, settleAttempt } from "./settleAttempt.ts";

export type DeliveryOptions = {
  db: Database;
  sealingKey: Uint8Array;
  /** Where endpoints may be reached: the outbound rules of calls to connected agents. */
  outbound: GuardedPostOptions;
  log: Logger;
  retryBaseMs: number;
  attemptTimeoutMs: number;
  /** Attempts this process makes at once. */
  concurrency?: number;
  /** Attempts at one endpoint in flight at once, across every process. */
  perEndpoint?: number;
  /** How often it looks for due deliveries when nothing woke it. */
  pollMs?: number;
};

/** Attempts in flight at one endpoint at once, across every process (docs/decisions.md). */
export const IN_FLIGHT_PER_ENDPOINT = 4;

/**
 * Delivers what is due, at least once: each delivery is claimed under a lease (three attempts'
 * time) before its attempt, so a process killed mid-attempt leaves it to whichever process looks
 * next once the lease lapses, with the same `webhook-id`. Every attempt and database call has a
 * deadline; `passedAt` says when the loop last looked, for readiness.
 */
export function startWebhookDelivery({
  db,
  sealingKey,
  outbound,
  log,
  retryBaseMs,
  attemptTimeoutMs,
  concurrency = 16,
  perEndpoint = IN_FLIGHT_PER_ENDPOINT,
  pollMs = 500,
}: DeliveryOptions) {
  const leaseMs = 3 * attemptTimeoutMs;
  const stopping = new AbortController();
  const wake = createAlarm();
  const inFlight = new Set<Promise<void>>();
  let passedAt = Date.now();
  let failures = 0;

  async function attempt(delivery: ClaimedDelivery) {
    const data = await deliveryData(db, delivery);
    if (data === undefined) {
      log.error("a webhook delivery's run is gone", { delivery: delivery.id });
      return count(await settleAttempt(db, delivery, GONE, { data: "null", retryBaseMs }));
    }
    const outcome = await sendDelivery(
      {
        id: delivery.id,
        url: delivery.endpoint.url,
        secret: openEndpointSecret(sealingKey, delivery.endpoint),
        body: deliveryBody(delivery, data),
      },
      { timeoutMs: attemptTimeoutMs, signal: stopping.signal, outbound },
    );
    if (stopping.signal.aborted) return releaseClaim(db, delivery);
    const settled = await settleAttempt(db, delivery, outcome, { data, retryBaseMs });
    count(settled);
    if (settled === "failed") {
      log.warn("a webhook delivery was given up", {
        delivery: delivery.id,
        endpoint: delivery.endpoint.id,
        attempts: delivery.attempts,
      });
    }
  }

  function start(delivery: ClaimedDelivery) {
    const running = attempt(delivery)
      .catch((error: unknown) => {
        // Its lease lapses and another attempt follows: at least once.
        log.warn("a webhook delivery attempt failed", {
          delivery: delivery.id,
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        inFlight.delete(running);
        wake.ring();
      });
    inFlight.add(running);
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const free = concurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await claimDeliveries(db, { limit: free, perEndpoint, leaseMs });
        failures = 0;
      } catch (error) {
        failures += 1;
        log.warn("could not claim webhook deliveries; trying again", {
          error: error instanceof Error ? error.message : String(error),
          attempt: failures,
        });
      }
      passedAt = Date.now();
      for (const delivery of claimed) start(delivery);
      const waitMs = failures > 0 ? backoffMs(failures, { maxMs: 5_000 }) : pollMs;
      // Every place taken: a finished attempt rings; a full claim may have left more behind.
      if (free <= 0 || claimed.length < free || failures > 0) await wake.sleep(waitMs);
    }
  })();

  return {
    /** Something was enqueued in this process: look at once. */
    wake: () => wake.ring(),
    /** When the loop last looked for due deliveries, in `Date.now()` time. */
    passedAt: () => passedAt,
    stop: async () => {
      stopping.abort();
      wake.ring();
      await loop;
      await Promise.all(inFlight);
    },
  };
}

const GONE = { kind: "refused", error: "the event's run no longer exists" } as const;

function count(settled: Settled | undefined) {
  if (settled && metricsOn()) webhookDeliveries.inc({ outcome: settled });
}
