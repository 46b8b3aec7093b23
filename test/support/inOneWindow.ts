// Rate limits count in fixed windows aligned to the minute: a test that must stay in one of them.

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** Time for an attempt that must wait for a window of its own: a whole minute, and its own run. */
export const WAITS_FOR_A_WINDOW_MS = 150_000;

/**
 * What `attempt` returns, from a run that began and ended in one minute of the clock, and so in one
 * fixed window of the API's (same clock: every request was served in between). When the minute
 * turns mid-run, `attempt` runs again, and no assertion is ever skipped. By default each attempt
 * spends a budget of its own (a new wallet or address, from `n`), so it runs again at once: the
 * minute has just begun. With `sameBudget`, what it spent after the turn already counts in the new
 * window, so it waits for the one after (give the test `WAITS_FOR_A_WINDOW_MS`).
 */
export async function inOneWindow<T>(
  attempt: (n: number) => Promise<T>,
  { sameBudget = false } = {},
): Promise<T> {
  for (let n = 1; n <= 3; n++) {
    if (n > 1 && sameBudget) {
      await new Promise((resolve) => setTimeout(resolve, 60_250 - (Date.now() % 60_000)));
    }
    const minute = minuteOf(Date.now());
    const result = await attempt(n);
    if (minuteOf(Date.now()) === minute) return result;
  }
  throw new Error("the minute turned during every attempt");
}
