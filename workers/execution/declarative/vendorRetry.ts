import { setTimeout as sleep } from "node:timers/promises";
import { transientVendorFailure } from "./vendorErrors.ts";

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;

/**
 * Calls the vendor until it answers, retrying rate limits, overloads and outages with exponential
 * backoff and full jitter (at least the vendor's `retry-after`) while the run's deadline leaves time
 * for the wait. A call that has already streamed text is never retried: the renter has seen it.
 */
export async function callVendorRetrying<T>(
  call: () => Promise<T>,
  run: { deadline: number; signal: AbortSignal; streamed: () => boolean },
): Promise<T> {
  let lastFailure: unknown;
  for (let failures = 0; ; failures++) {
    try {
      return await call();
    } catch (error) {
      // The deadline cut short a retry of a failing vendor: that failure is why the run failed.
      if (run.signal.aborted && lastFailure !== undefined) throw lastFailure;
      lastFailure = error;
      const transient = transientVendorFailure(error);
      if (!transient || run.streamed() || run.signal.aborted) throw error;
      const backoff = Math.random() * Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** failures);
      const wait = Math.max(backoff, transient.retryAfterMs ?? 0);
      if (Date.now() + wait >= run.deadline) throw error;
      await sleep(wait, undefined, { signal: run.signal }).catch(() => {
        throw error;
      });
    }
  }
}
