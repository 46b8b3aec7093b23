// Rate limits count in fixed windows aligned to the minute: a test that must stay in one of them.

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/**
 * What `attempt` returns, from a run that began and ended in one minute of the clock, and so in one
 * fixed window of the API's (same clock: every request was served in between). When the minute
 * turns mid-run, `attempt` runs again from the start of the minute after, since what it spent after
 * the turn is already counted in the new window; no assertion is ever skipped.
 */
export async function inOneWindow<T>(attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 1; n <= 3; n++) {
    if (n > 1) await new Promise((resolve) => setTimeout(resolve, 60_250 - (Date.now() % 60_000)));
    const minute = minuteOf(Date.now());
    const result = await attempt(n);
    if (minuteOf(Date.now()) === minute) return result;
  }
  throw new Error("the minute turned during every attempt");
}
