// Registering agents over HTTP the way a creator does: submit a manifest, then follow its job.
import { expect } from "vitest";
import type { StackOptions } from "../../devStack/startStack.ts";
import type { Worker } from "../../devStack/startWorker.ts";
import type { JsonResponse, RequestOptions } from "./http.ts";

/** What these helpers need of an `http()` client (or of a wrapper that records its answers). */
export type RegistrationClient = {
  get: (path: string, options?: RequestOptions) => Promise<JsonResponse>;
  post: (path: string, body: unknown, options?: RequestOptions) => Promise<JsonResponse>;
};

export type Manifest = Record<string, unknown>;

/** What registering agents needs: the API and a worker process over NATS JetStream. */
export const REGISTRATION_STACK = {
  nats: true,
  api: 1,
  workers: 1,
  // Registration reads and writes the app schema only: no indexer.
  ponder: false,
  // Tests poll jobs and register hundreds of agents; the rate limit is tested elsewhere.
  rateLimitPerMinute: 100_000,
} satisfies StackOptions;

/** A valid declarative manifest on a hosted vendor, named `name`, with `extra` fields over it. */
export function declarativeManifest(name: string, extra: Manifest = {}): Manifest {
  return {
    name,
    category: "research",
    description: `Agent ${name}, registered by the tests`,
    model: { provider: "openai", model: "gpt-4o" },
    system_prompt: `You are ${name}.`,
    input_schema: { type: "object", properties: { topic: { type: "string" } } },
    output_schema: { type: "string" },
    ...extra,
  };
}

/** POSTs a registration and returns its job id, asserting the 202 `queued` answer. */
export async function registerAgent(
  client: RegistrationClient,
  manifest: unknown,
  options?: RequestOptions,
): Promise<string> {
  const response = await client.post("/v1/agents", manifest, options);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body).toEqual({
    job_id: expect.stringMatching(/^job_[0-9a-f]{24}$/),
    status: "queued",
  });
  return response.body.job_id;
}

/** Polls `GET /v1/jobs/:id` until the job is no longer queued; returns that answer. */
export function settledJob(
  client: RegistrationClient,
  jobId: string,
  timeoutMs = 30_000,
): Promise<JsonResponse> {
  return until(
    `job ${jobId} to settle`,
    async () => {
      const job = await client.get(`/v1/jobs/${jobId}`);
      expect(job.status, JSON.stringify(job.body)).toBe(200);
      return job.body.status === "queued" ? undefined : job;
    },
    timeoutMs,
  );
}

/** The first value of `probe` that is neither undefined nor false, polled every 25 ms. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Runs `work` with `worker` frozen (SIGSTOP): what the bus hands it waits. Resumes it however `work` ends. */
export async function whilePaused<T>(worker: Worker, work: () => Promise<T>): Promise<T> {
  worker.kill("SIGSTOP");
  try {
    return await work();
  } finally {
    worker.kill("SIGCONT");
  }
}
