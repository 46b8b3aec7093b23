import autocannon from "autocannon";

export type LoadResult = {
  concurrency: number;
  /** Requests answered with the expected status. */
  ok: number;
  /** Every request answered. */
  answered: number;
  /** Requests answered otherwise, timed out or failed on the socket. */
  errors: number;
  firstError?: string;
  seconds: number;
  requestsPerSecond: number;
  /** Of the `ok` requests, from writing the request to the end of the response. */
  latencyMs: number[];
};

/**
 * Closed-loop load from autocannon: `concurrency` keep-alive connections, each sending GET `url` again
 * as soon as the last one is answered, for `seconds`.
 */
export async function runLoad(options: {
  url: string;
  headers?: Record<string, string>;
  concurrency: number;
  seconds: number;
  expectStatus?: number;
}): Promise<LoadResult> {
  const { concurrency } = options;
  const expected = options.expectStatus ?? 200;
  const latencyMs: number[] = [];
  let answered = 0;
  let errors = 0;
  let firstError: string | undefined;
  const instance = autocannon({
    url: options.url,
    headers: options.headers,
    connections: concurrency,
    duration: options.seconds,
  });
  // Every sample, at full resolution: autocannon's own histogram counts whole milliseconds.
  instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
    answered++;
    if (status === expected) latencyMs.push(ms);
    else {
      errors++;
      firstError ??= `status ${status}`;
    }
  });
  instance.on("reqError", (error: unknown) => {
    errors++;
    firstError ??= String(error);
  });
  const result = await instance;
  return {
    concurrency,
    ok: latencyMs.length,
    answered,
    errors,
    firstError,
    seconds: result.duration,
    requestsPerSecond: latencyMs.length / result.duration,
    latencyMs,
  };
}
