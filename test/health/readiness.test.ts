// `/healthz` and `/readyz` on the real stack: an API process over NATS and a worker process answering
// on its HEALTH_PORT. Postgres, the chain and NATS are frozen (SIGSTOP) in turn: each process's
// `/readyz` turns 503 within its bound, naming what is frozen, and 200 again once it thaws, while
// `/healthz` answers 200 throughout. The probes spend no one's rate-limit budget.
import { beforeAll, expect, it } from "vitest";
import { findFreePort } from "../../devStack/findFreePort.ts";
import { READY_CHECK_DEADLINE_MS, READY_REPORT_CACHE_MS } from "../../lib/health/readiness.ts";
import { until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

/**
 * From the freeze, `/readyz` is 503 within a check's deadline and a report's caching, plus what a
 * loaded machine adds to a probe.
 */
const NOT_READY_WITHIN_MS = READY_CHECK_DEADLINE_MS + READY_REPORT_CACHE_MS + 3_000;
/** Ready again within this of the thaw: the indexer may have been restarted by its supervisor. */
const READY_AGAIN_WITHIN_MS = 90_000;
/** A probe not answered within this has failed: neither endpoint waits on a frozen dependency. */
const PROBE_MS = 5_000;
/** Few enough that the probes below would exhaust it if they counted. */
const RATE_LIMIT_PER_MINUTE = 20;

const stack = useStack({ nats: true, api: 1, rateLimitPerMinute: RATE_LIMIT_PER_MINUTE });
let workerHealth: string;

beforeAll(async () => {
  const port = await findFreePort();
  await stack().addWorker({ HEALTH_PORT: String(port) });
  workerHealth = `http://127.0.0.1:${port}`;
}, 120_000);

type Probe = {
  status: number;
  body: { status: string; checks?: Record<string, { status: string }> };
};

async function probe(url: string): Promise<Probe> {
  const reply = await fetch(url, { signal: AbortSignal.timeout(PROBE_MS) });
  return { status: reply.status, body: (await reply.json()) as Probe["body"] };
}

const failedChecks = ({ body }: Probe) =>
  Object.entries(body.checks ?? {})
    .filter(([, { status }]) => status === "failed")
    .map(([name]) => name);

it("turns /readyz 503 on the API and a worker while Postgres, the chain or NATS is frozen, and 200 after; /healthz stays 200", async () => {
  const origins = { api: stack().api.url, worker: workerHealth };
  for (const [name, origin] of Object.entries(origins)) {
    const ready = await until(`${name} ready`, async () => {
      const answer = await probe(`${origin}/readyz`);
      return answer.status === 200 && answer;
    });
    expect(Object.keys(ready.body.checks ?? {}).sort(), name).toEqual(
      name === "api"
        ? ["chain", "indexer", "migrations", "nats", "postgres"]
        : ["chain", "consumers", "migrations", "nats", "postgres", "webhooks"],
    );
  }

  // `/healthz` is probed all along, on both processes.
  const healthAnswers: { origin: string; status: number | string }[] = [];
  let probing = true;
  const healthProbes = (async () => {
    while (probing) {
      for (const origin of Object.values(origins)) {
        const status = await probe(`${origin}/healthz`).then(
          (answer) => answer.status,
          (error: Error) => error.name,
        );
        healthAnswers.push({ origin, status });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  const processes = { postgres: stack().postgres, chain: stack().anvil, nats: stack().nats };
  const observed: Record<string, unknown> = {};
  try {
    for (const dependency of ["postgres", "chain", "nats"] as const) {
      const frozenAt = Date.now();
      processes[dependency].kill("SIGSTOP");
      try {
        for (const [name, origin] of Object.entries(origins)) {
          const notReady = await until(
            `${name} not ready with ${dependency} frozen`,
            async () => {
              const answer = await probe(`${origin}/readyz`);
              return answer.status === 503 && answer;
            },
            NOT_READY_WITHIN_MS,
          );
          observed[`${name} ${dependency}`] = {
            within: Date.now() - frozenAt <= NOT_READY_WITHIN_MS,
            names: failedChecks(notReady).includes(dependency),
          };
        }
      } finally {
        processes[dependency].kill("SIGCONT");
      }
      for (const [name, origin] of Object.entries(origins)) {
        await until(
          `${name} ready again after ${dependency} thawed`,
          async () => (await probe(`${origin}/readyz`)).status === 200,
          READY_AGAIN_WITHIN_MS,
        );
      }
    }
  } finally {
    probing = false;
    await healthProbes;
  }

  const everyCase = Object.fromEntries(
    Object.keys(origins).flatMap((name) =>
      ["postgres", "chain", "nats"].map((dependency) => [
        `${name} ${dependency}`,
        { within: true, names: true },
      ]),
    ),
  );
  expect(observed).toEqual(everyCase);
  expect(healthAnswers.filter(({ status }) => status !== 200)).toEqual([]);
  expect(healthAnswers.length).toBeGreaterThan(2 * RATE_LIMIT_PER_MINUTE);
  // Hundreds of probes from this address, and its budget is whole: they are not rate-limited.
  expect((await fetch(`${stack().api.url}/v1/indexer`)).status).toBe(200);
}, 400_000);
