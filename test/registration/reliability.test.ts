// Acceptance 4: registration survives what production throws at it. A worker SIGKILLed while it holds
// a job, NATS restarting mid-run, an API that stored a job but never published it, 200 registrations
// at once and retried POSTs: every accepted job completes, exactly once.
import { randomBytes } from "node:crypto";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { HDAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Worker } from "../../devStack/startWorker.ts";
import type { Bus, SUBJECTS } from "../../lib/bus/bus.ts";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { parseSecretKey, seal } from "../../lib/crypto/secretBox.ts";
import { agentSecrets, agents, jobs } from "../../lib/db/appSchema.ts";
import { SEALING_KEY, startTestStack, type TestStack } from "../harness/stack.ts";
import { getJson, type JsonResponse, signIn } from "../support/http.ts";

/** Redelivery after 2 s instead of 30: a job held by a dead worker comes back quickly. */
const FAST_REDELIVERY = { REGISTRATION_ACK_WAIT_MS: "2000" };
const REGISTRATION_SUBJECT: (typeof SUBJECTS)[number] = "jobs.registration";

let stack: TestStack;
/** Everything the API and worker processes printed, in order. */
let output = "";
let worker: Worker | undefined;
/** NATS started again in place by the restart test; stopped after the stack. */
const tokens = new Map<string, string>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

async function tokenOf(account: HDAccount): Promise<string> {
  let token = tokens.get(account.address);
  if (!token) {
    token = await signIn(stack.api.url, account);
    tokens.set(account.address, token);
  }
  return token;
}

function manifest(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    category: "research",
    description: `Agent ${name}, registered by the reliability tests`,
    model: { provider: "openai", model: "gpt-4o" },
    system_prompt: `You are ${name}.`,
    input_schema: { type: "object", properties: { topic: { type: "string" } } },
    output_schema: { type: "string" },
    ...extra,
  };
}

async function post(
  account: HDAccount,
  body: object | string,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const response = await fetch(`${stack.api.url}/v1/agents`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${await tokenOf(account)}`,
      "content-type": "application/json",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Submits a registration and returns its job id (202 asserted). */
async function submit(account: HDAccount, body: object): Promise<string> {
  const response = await post(account, body);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body).toEqual({
    job_id: expect.stringMatching(/^job_[0-9a-f]{24}$/),
    status: "queued",
  });
  return response.body.job_id;
}

type JobRow = {
  id: string;
  status: string;
  result: unknown;
  error: unknown;
  updatedAt: Date;
  publishedAt: Date | null;
};

async function jobRows(ids: string[]): Promise<JobRow[]> {
  return stack.db
    .select({
      id: jobs.id,
      status: jobs.status,
      result: jobs.result,
      error: jobs.error,
      updatedAt: jobs.updatedAt,
      publishedAt: jobs.publishedAt,
    })
    .from(jobs)
    .where(inArray(jobs.id, ids));
}

/** Waits until none of `ids` is queued; returns their rows. */
async function settled(ids: string[], timeoutMs = 90_000): Promise<JobRow[]> {
  return until(
    `${ids.length} jobs to settle`,
    async () => {
      const rows = await jobRows(ids);
      return rows.length === ids.length && rows.every((row) => row.status !== "queued")
        ? rows
        : undefined;
    },
    timeoutMs,
  );
}

type Result = {
  agent_id: string;
  listing_id: string;
  create_listing: { seed: string; metadata_uri: string; on_chain_listing_id: string };
};

/** "registration processed" lines of the worker processes: job id and outcome. */
function processedLines(): { jobId: string; outcome: string }[] {
  const pattern =
    /"message":"registration processed","job_id":"(job_[0-9a-f]+)","outcome":"(\w+)"/g;
  return [...output.matchAll(pattern)].map((match) => ({
    jobId: match[1] as string,
    outcome: match[2] as string,
  }));
}

/**
 * Every job completed, once: its own agent, its own sealed secret, distinct listing ids, no other
 * agent for `creator`, and no worker ever reported completing it twice.
 */
async function expectCompletedExactlyOnce(creator: HDAccount, ids: string[]) {
  const rows = await settled(ids);
  for (const row of rows)
    expect({ id: row.id, status: row.status, error: row.error }).toEqual({
      id: row.id,
      status: "completed",
      error: null,
    });
  const results = rows.map((row) => row.result as Result);
  const agentIds = results.map((result) => result.agent_id);
  const listingIds = results.map((result) => result.create_listing.on_chain_listing_id);
  expect(new Set(agentIds).size).toBe(ids.length);
  expect(new Set(listingIds).size).toBe(ids.length);
  expect(new Set(results.map((result) => result.listing_id)).size).toBe(ids.length);

  const stored = await stack.db
    .select({ agentId: agents.agentId, listing: agents.onChainListingId })
    .from(agents)
    .where(eq(agents.creator, creator.address.toLowerCase()));
  expect(stored.map((agent) => agent.agentId).sort()).toEqual([...agentIds].sort());
  const [secrets] = await stack.db
    .select({ n: count() })
    .from(agentSecrets)
    .where(inArray(agentSecrets.onChainListingId, listingIds));
  expect(secrets?.n).toBe(ids.length);

  const completions = processedLines().filter(
    (line) => line.outcome === "completed" && ids.includes(line.jobId),
  );
  expect(completions.length).toBeLessThanOrEqual(ids.length);
  expect(new Set(completions.map((line) => line.jobId)).size).toBe(completions.length);
  return rows;
}

async function startWorker(env: Record<string, string> = FAST_REDELIVERY): Promise<Worker> {
  worker = await stack.startWorker(env);
  return worker;
}

async function stopWorker() {
  await worker?.stop();
  worker = undefined;
}

/** A transaction holding `jobId`'s row lock (as a worker's would) until `release()`. */
function holdJobRow(jobId: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked = () => {};
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const done = stack.db.transaction(async (tx) => {
    await tx.select({ id: jobs.id }).from(jobs).where(eq(jobs.id, jobId)).for("update");
    locked();
    await released;
  });
  return { isLocked, release, done };
}

/** Database sessions blocked on a row lock while selecting a job FOR UPDATE: a worker holding it. */
async function workersWaitingOnJobLock(): Promise<number> {
  const [row] = (await stack.db.execute(sql`
    select count(*)::int as n from pg_stat_activity
    where wait_event_type = 'Lock' and query ilike '%"app"."jobs"%for update%'
  `)) as unknown as { n: number }[];
  return row?.n ?? 0;
}

beforeAll(async () => {
  stack = await startTestStack({
    nats: true,
    // Polling and 200 concurrent registrations are not what the rate limit is tested with.
    rateLimitPerMinute: 100_000,
    onApiOutput: (chunk) => {
      output += chunk;
    },
  });
  await startWorker();
});

afterAll(async () => {
  await stack?.stop();
});

describe("a retried POST with the same Idempotency-Key creates one job", () => {
  const wallet = devAccount(30);
  const otherWallet = devAccount(31);

  async function jobsWithKey(account: HDAccount, key: string): Promise<number> {
    const [row] = await stack.db
      .select({ n: count() })
      .from(jobs)
      .where(
        and(
          eq(jobs.idempotencyKey, key),
          eq(sql`lower(${jobs.wallet})`, account.address.toLowerCase()),
        ),
      );
    return row?.n ?? 0;
  }

  it("answers a sequential retry with the same job, before and after it completes", async () => {
    const key = `retry-${randomBytes(8).toString("hex")}`;
    const body = manifest("idempotent-sequential");
    const first = await post(wallet, body, { "idempotency-key": key });
    const second = await post(wallet, body, { "idempotency-key": key });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.job_id).toBe(first.body.job_id);
    expect(await jobsWithKey(wallet, key)).toBe(1);

    const [row] = await settled([first.body.job_id]);
    expect(row?.status).toBe("completed");
    const late = await post(wallet, body, { "idempotency-key": key });
    expect(late.status).toBe(202);
    expect(late.body.job_id).toBe(first.body.job_id);
    // The retry reports the job's state; it never queues the work again.
    expect(["queued", "completed"]).toContain(late.body.status);
    expect(await jobsWithKey(wallet, key)).toBe(1);
  });

  it("answers 20 concurrent identical POSTs with one job and registers one agent", async () => {
    const key = `burst-${randomBytes(8).toString("hex")}`;
    const body = manifest("idempotent-concurrent");
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post(wallet, body, { "idempotency-key": key })),
    );
    for (const response of responses) expect(response.status).toBe(202);
    const jobIds = new Set(responses.map((response) => response.body.job_id));
    expect(jobIds.size).toBe(1);
    expect(await jobsWithKey(wallet, key)).toBe(1);

    const [jobId] = [...jobIds] as [string];
    const [row] = await settled([jobId]);
    expect(row?.status).toBe("completed");
    const registered = await stack.db
      .select({ id: agents.agentId })
      .from(agents)
      .where(sql`${agents.agentId} like 'idempotent-concurrent-%'`);
    expect(registered).toEqual([{ id: (row?.result as Result | undefined)?.agent_id }]);
  });

  it("refuses the same key with a different body: 400 invalid_request, no new job", async () => {
    const key = `conflict-${randomBytes(8).toString("hex")}`;
    const first = await post(wallet, manifest("idempotent-original"), { "idempotency-key": key });
    expect(first.status).toBe(202);
    const changed = await post(wallet, manifest("idempotent-changed"), { "idempotency-key": key });
    expect(changed.status).toBe(400);
    expect(changed.body).toEqual({
      error: {
        code: "invalid_request",
        message: "This Idempotency-Key was already used with another body",
        status: 400,
      },
    });
    expect(await jobsWithKey(wallet, key)).toBe(1);
  });

  it("lets one of several concurrent different bodies under one key win, refusing the rest", async () => {
    const key = `race-${randomBytes(8).toString("hex")}`;
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        post(wallet, manifest(`idempotent-race-${index}`), { "idempotency-key": key }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([202, ...Array(9).fill(400)]);
    expect(await jobsWithKey(wallet, key)).toBe(1);
  });

  it("scopes keys to the wallet, and without a key every POST is a new job", async () => {
    const key = `shared-${randomBytes(8).toString("hex")}`;
    const body = manifest("idempotent-scoped");
    const mine = await post(wallet, body, { "idempotency-key": key });
    const theirs = await post(otherWallet, body, { "idempotency-key": key });
    expect(mine.status).toBe(202);
    expect(theirs.status).toBe(202);
    expect(theirs.body.job_id).not.toBe(mine.body.job_id);

    const unkeyed = await Promise.all([post(wallet, body), post(wallet, body)]);
    expect(unkeyed[0]?.body.job_id).not.toBe(unkeyed[1]?.body.job_id);
    await settled([mine.body.job_id, theirs.body.job_id, ...unkeyed.map((r) => r.body.job_id)]);
  });

  it("refuses a malformed Idempotency-Key with 400 invalid_request", async () => {
    for (const key of ["has space", "x".repeat(256), "tab\tkey"]) {
      const response = await post(wallet, manifest("idempotent-bad-key"), {
        "idempotency-key": key,
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: "invalid_request",
        message: "Idempotency-Key must be 1 to 255 visible ASCII characters",
      });
    }
  });
});

describe("200 concurrent registrations", () => {
  it("all complete, with 200 distinct job, agent and listing ids", {
    timeout: 240_000,
  }, async () => {
    const wallets = [40, 41, 42, 43].map((index) => devAccount(index));
    for (const account of wallets) await tokenOf(account);

    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        post(wallets[index % wallets.length] as HDAccount, manifest(`concurrent-${index}`)),
      ),
    );
    const accepted = Date.now() - started;
    for (const response of responses) {
      expect(response.status, JSON.stringify(response.body)).toBe(202);
    }
    const jobIds = responses.map((response) => response.body.job_id as string);
    expect(new Set(jobIds).size).toBe(200);

    const rows = await settled(jobIds, 180_000);
    const completedIn = Date.now() - started;
    expect(rows.filter((row) => row.status === "completed")).toHaveLength(200);

    // Each creator sees its own jobs completed through the API, and owns its agents.
    const polled = await Promise.all(
      responses.map((response, index) =>
        getJson(
          stack.api.url,
          `/v1/jobs/${response.body.job_id}`,
          tokens.get((wallets[index % wallets.length] as HDAccount).address),
        ),
      ),
    );
    for (const job of polled) expect(job.body.status).toBe("completed");
    const results = polled.map((job) => job.body.result as Result);
    expect(new Set(results.map((result) => result.agent_id)).size).toBe(200);
    expect(new Set(results.map((result) => result.listing_id)).size).toBe(200);
    for (const [index, result] of results.entries()) {
      expect(result.agent_id).toMatch(new RegExp(`^concurrent-${index}-[0-9a-f]{8}$`));
    }
    for (const account of wallets) {
      const [owned] = await stack.db
        .select({ n: count() })
        .from(agents)
        .where(eq(agents.creator, account.address.toLowerCase()));
      expect(owned?.n).toBe(50);
    }
    console.info(
      `200 registrations: accepted in ${accepted} ms, all completed in ${completedIn} ms`,
    );
  });
});

describe("a worker SIGKILLed while it holds jobs", () => {
  it("leaves the held job to a new worker, which completes every job exactly once", {
    timeout: 180_000,
  }, async () => {
    const creator = devAccount(50);
    await stopWorker();

    // The victim is queued while no worker runs; its row is locked so the worker taking it
    // blocks mid-transaction: delivered, unacknowledged, held.
    const victim = await submit(creator, manifest("crash-victim"));
    const lock = holdJobRow(victim);
    await lock.isLocked;
    const others = await Promise.all(
      Array.from({ length: 12 }, (_, index) => submit(creator, manifest(`crash-other-${index}`))),
    );

    const doomed = await startWorker();
    await until("the worker to hold the victim", async () => (await workersWaitingOnJobLock()) > 0);
    doomed.kill("SIGKILL");
    await doomed.exited;
    worker = undefined;
    lock.release();
    await lock.done;
    const [held] = await jobRows([victim]);
    expect(held?.status).toBe("queued");

    await startWorker();
    const ids = [victim, ...others];
    const rows = await expectCompletedExactlyOnce(creator, ids);
    // The victim was completed by the new worker, after its redelivery.
    expect(processedLines()).toContainEqual({ jobId: victim, outcome: "completed" });

    // Stable: well past another redelivery window nothing changes.
    await sleep(5_000);
    const again = await jobRows(ids);
    for (const row of rows) {
      const later = again.find((candidate) => candidate.id === row.id);
      expect(later?.result).toEqual(row.result);
      expect(later?.updatedAt.getTime()).toBe(row.updatedAt.getTime());
    }
    await expectCompletedExactlyOnce(creator, ids);
  });

  it("SIGKILLed mid-batch, its unacknowledged jobs are redelivered and completed once", {
    timeout: 180_000,
  }, async () => {
    const creator = devAccount(51);
    await stopWorker();
    const ids = await Promise.all(
      Array.from({ length: 60 }, (_, index) => submit(creator, manifest(`batch-${index}`))),
    );
    const before = processedLines().length;
    const doomed = await startWorker({ ...FAST_REDELIVERY, WORKER_CONCURRENCY: "1" });
    await until("the worker to process a first job", () => processedLines().length > before);
    doomed.kill("SIGKILL");
    await doomed.exited;
    worker = undefined;
    const [done] = await stack.db
      .select({ n: count() })
      .from(jobs)
      .where(and(inArray(jobs.id, ids), eq(jobs.status, "queued")));
    expect(done?.n).toBeGreaterThan(0);

    await startWorker();
    await expectCompletedExactlyOnce(creator, ids);
  });

  it("a job delivered again after it completed (crash between commit and ack) is not redone", async () => {
    const creator = devAccount(52);
    const jobId = await submit(creator, manifest("redelivered"));
    const [row] = await settled([jobId]);
    expect(row?.status).toBe("completed");

    // What a redelivery looks like to the worker: the same job id again (another message id, so
    // JetStream's publish dedupe does not drop it).
    const bus: Bus = await createJetStreamBus(stack.nats?.natsUrl as string);
    try {
      await bus.publish(
        REGISTRATION_SUBJECT,
        `${jobId}-redelivery`,
        new TextEncoder().encode(jobId),
      );
    } finally {
      await bus.close();
    }
    await until("the redelivery to be processed", () =>
      processedLines().some((line) => line.jobId === jobId && line.outcome === "already_done"),
    );
    const [after] = await jobRows([jobId]);
    expect(after?.result).toEqual(row?.result);
    expect(after?.updatedAt.getTime()).toBe(row?.updatedAt.getTime());
    await expectCompletedExactlyOnce(creator, [jobId]);
  });
});

describe("no accepted job is lost when the bus is unavailable", () => {
  it("a job stored but never published (the API died before publishing) is published by the outbox relay", async () => {
    const creator = devAccount(60);
    // A real job first, to learn how the API records this wallet.
    const reference = await submit(creator, manifest("outbox-reference"));
    const [stored] = await stack.db
      .select({ wallet: jobs.wallet })
      .from(jobs)
      .where(eq(jobs.id, reference));
    const body = JSON.stringify(manifest("outbox-orphan"));
    const jobId = `job_${randomBytes(12).toString("hex")}`;
    await stack.db.insert(jobs).values({
      id: jobId,
      wallet: stored?.wallet as string,
      kind: "registration",
      status: "queued",
      requestHash: "not-used-without-an-idempotency-key",
      request: seal(parseSecretKey(SEALING_KEY), Buffer.from(body), jobId),
    });

    const [row] = await settled([jobId], 30_000);
    expect(row?.publishedAt).not.toBeNull();
    await expectCompletedExactlyOnce(creator, [reference, jobId]);
    expect(output).toContain('"message":"outbox relay published jobs"');
    const job = await getJson(stack.api.url, `/v1/jobs/${jobId}`, await tokenOf(creator));
    expect(job.body).toMatchObject({ job_id: jobId, status: "completed" });
  });

  it("NATS restarting mid-run loses no accepted job", { timeout: 240_000 }, async () => {
    const creator = devAccount(61);
    const nats = stack.nats;
    if (!nats) throw new Error("the stack runs without NATS");
    const outputBefore = output.length;

    // Registrations in flight as NATS goes down, and more while it is down: all accepted.
    const inFlight = Array.from({ length: 20 }, (_, index) =>
      post(creator, manifest(`restart-inflight-${index}`)),
    );
    await nats.stopServer();
    const duringOutage = await Promise.all(
      Array.from({ length: 10 }, (_, index) => post(creator, manifest(`restart-outage-${index}`))),
    );
    const responses = [...(await Promise.all(inFlight)), ...duringOutage];
    for (const response of responses) {
      expect(response.status, JSON.stringify(response.body)).toBe(202);
    }
    const ids = responses.map((response) => response.body.job_id as string);
    const unpublished = (await jobRows(ids)).filter((row) => row.publishedAt === null);
    expect(unpublished.length).toBeGreaterThanOrEqual(duringOutage.length);
    expect(output.slice(outputBefore)).toContain("the outbox relay will publish it");

    await nats.startServer();
    await expectCompletedExactlyOnce(creator, ids);
    expect(output.slice(outputBefore)).toContain('"message":"outbox relay published jobs"');

    // The same processes keep working after the restart.
    const after = await submit(creator, manifest("restart-after"));
    await expectCompletedExactlyOnce(creator, [...ids, after]);
  });
});
