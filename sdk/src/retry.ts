export type RetryOptions = {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  maxRetries?: number;
  /** The first retry's delay ceiling in ms, doubled for each next one. Default 500. */
  initialDelayMs?: number;
  /** The ceiling of any one backoff delay in ms. Default 8,000. */
  maxDelayMs?: number;
  /**
   * The longest `Retry-After` waited for, in ms: one asking for longer is not retried, its error
   * thrown at once. Default 60,000 (the API's rate limits count per minute).
   */
  maxRetryAfterMs?: number;
};

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxRetries: 3,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * How long to wait before retry `attempt` (1 for the first): full jitter over an exponentially
 * growing ceiling, so many clients failing together do not come back together; a server's
 * `Retry-After` in full when it asks for longer. Undefined when it asks for more than
 * `maxRetryAfterMs`: then the request is not retried.
 */
export function retryDelayMs(
  attempt: number,
  options: Required<RetryOptions>,
  retryAfterSeconds?: number,
): number | undefined {
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** (attempt - 1));
  const jittered = Math.random() * ceiling;
  if (retryAfterSeconds === undefined) return jittered;
  const asked = retryAfterSeconds * 1000;
  return asked > options.maxRetryAfterMs ? undefined : Math.max(asked, jittered);
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
