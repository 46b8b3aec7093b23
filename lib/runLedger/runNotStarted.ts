/**
 * The `failure` of a run refused before it started: no slot freed within the queue wait. It was never
 * run or charged; the API answers it as 503 `service_unavailable`, not as a failed run.
 */
export const RUN_NOT_STARTED = "no slot freed in time";

/**
 * The `failure` of a run refused because the bus did not acknowledge its command in time (NATS
 * stalled or down) before any worker took it: never run or charged, answered as 503 like the other.
 */
export const RUN_NOT_HANDED_OVER = "the workers could not be reached in time";

/** Whether a run's `failure` says it was refused before it started: it was never served. */
export function refusedBeforeStart(failure: string | null): boolean {
  return failure === RUN_NOT_STARTED || failure === RUN_NOT_HANDED_OVER;
}
