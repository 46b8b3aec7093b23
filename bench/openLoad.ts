import { Agent, request } from "node:http";

/** One request of an open-loop run, its times in epoch ms (`performance.timeOrigin`-based). */
export type OpenLoadSample = {
  index: number;
  /** When the schedule meant it to go: the latency clock starts here. */
  dueAt: number;
  /** When it was handed to the socket; later than `dueAt` only when the generator fell behind. */
  sentAt: number;
  /** When the whole answer was in; undefined when the request failed on the socket. */
  answeredAt?: number;
  status?: number;
  body?: string;
  error?: string;
};

export type OpenLoadOptions = {
  /** `http://host:port`; the requests' paths and bodies come from `requestOf`. */
  origin: string;
  /** Requests per second, spaced evenly, whatever the answers do. */
  rate: number;
  seconds: number;
  requestOf: (index: number) => {
    path: string;
    headers: Record<string, string>;
    body: string;
  };
  /** Gives up on an answer after this long (default 60 s). */
  timeoutMs?: number;
};

const wallClock = () => performance.timeOrigin + performance.now();

/**
 * Open-loop load: request i is due at start + i / rate and is sent then, on a keep-alive connection
 * of its own or a free one, however many earlier requests are still unanswered (so a slow server
 * meets the same arrivals as a fast one, and its queueing shows in the latency). Resolves once every
 * request is answered or has failed.
 */
export async function runOpenLoad(options: OpenLoadOptions): Promise<OpenLoadSample[]> {
  const { origin, rate, seconds, requestOf, timeoutMs = 60_000 } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const total = Math.round(rate * seconds);
  const samples: OpenLoadSample[] = [];
  const answers: Promise<void>[] = [];
  const start = wallClock() + 5;
  let next = 0;
  try {
    while (next < total) {
      const now = wallClock();
      for (; next < total && start + (next * 1000) / rate <= now; next++) {
        const sample: OpenLoadSample = {
          index: next,
          dueAt: start + (next * 1000) / rate,
          sentAt: 0,
        };
        samples.push(sample);
        answers.push(send(origin, agent, requestOf(next), sample, timeoutMs));
      }
      const wait = start + (next * 1000) / rate - wallClock();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait - 0.5)));
      else await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(answers);
    return samples;
  } finally {
    agent.destroy();
  }
}

function send(
  origin: string,
  agent: Agent,
  { path, headers, body }: ReturnType<OpenLoadOptions["requestOf"]>,
  sample: OpenLoadSample,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve) => {
    const outgoing = request(
      `${origin}${path}`,
      {
        method: "POST",
        agent,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          sample.answeredAt = wallClock();
          sample.status = response.statusCode;
          sample.body = Buffer.concat(chunks).toString();
          resolve();
        });
        response.on("error", (error) => {
          sample.error ??= error.message;
          resolve();
        });
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    outgoing.on("error", (error) => {
      sample.error ??= error.message;
      resolve();
    });
    sample.sentAt = wallClock();
    outgoing.end(body);
  });
}
