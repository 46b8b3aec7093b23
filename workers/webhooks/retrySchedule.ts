/** A delivery is retried for this long after its event was enqueued, then given up. */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 3_600_000;

/**
 * How long to wait after a failed attempt, the `attempts`-th, before the next: `baseMs`, doubling
 * with each attempt, at most `MAX_RETRY_DELAY_MS`.
 */
export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempts - 1));
}
