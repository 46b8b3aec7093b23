// Acceptance 4: registration survives what production throws at it. A worker SIGKILLed while it holds
// a job, NATS restarting mid-run, an API that stored a job but never published it, 200 registrations
// at once and retried POSTs: every accepted job completes, exactly once. A failure no retry can fix
// fails its job on the first delivery.
import { randomBytes } from "node:crypto";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { HDAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { SEALING_KEY } from "../../devStack/startStack.ts";
import type { Worker } from "../../devStack/startWorker.ts";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { parseSecretKey, seal } from "../../lib/crypto/secretBox.ts";
import { agents, jobs } from "../../lib/db/appSchema.ts";
import { REGISTRATION_SUBJECT } from "../../lib/jobs/publishJob.ts";
import { http, type RequestOptions, signIn } from "../support/http.ts";
import { captureOutput } from "../support/processOutput.ts";
import {
  declarativeManifest as manifest,
  REGISTRATION_STACK,
  registerAgent,
  settledJob,
  until,
  whilePaused,
} from "../support/registration.ts";
import { type RegistrationResult, registrationJobs } from "../support/registrationJobs.ts";
import { registrationBacklog } from "../support/registrationStream.ts";
import { useStack } from "../support/useStack.ts";

const output = captureOutput();
const stack = useStack({
  ...REGISTRATION_STACK,
  // Redelivery after 2 s instead of 30: a job held by a dead worker comes back quickly.
  env: { REGISTRATION_ACK_WAIT_MS: "2000" },
  onOutput: output.onOutput,
});
const { jobRows, settled, processedLines, expectCompletedExactlyOnce } = registrationJobs(
  stack,
  output,
);

/** The worker process consuming registrations; the tests that crash or replace it update it. */
let worker: Worker;
beforeAll(() => {
  worker = stack().workers[0] as Worker;
});

const clients = new Map<string, Promise<ReturnType<typeof http>>>();

/** An HTTP client signed in as `account` (once per wallet). */
function as(account: HDAccount) {
  let client = clients.get(account.address);
  if (!client) {
    const apiUrl = () => stack().api.url;
    client = signIn(apiUrl(), account).then((bearer) => http(apiUrl, { bearer }));
    clients.set(account.address, client);
  }
  return client;
}

async function post(account: HDAccount, body: object, options?: RequestOptions) {
  return (await as(account)).post("/v1/agents", body, options);
}

async function submit(account: HDAccount, body: object): Promise<string> {
  return registerAgent(await as(account), body);
}

/** Options sending a fresh Idempotency-Key. */
function freshIdempotencyKey(purpose: string) {
  return { headers: { "idempotency-key": `${purpose}-${randomBytes(8).toString("hex")}` } };
}

/** What the workers logged about `jobId`, in order: each outcome and each failed attempt. */
function workerLogOf(jobId: string) {
  return output
    .entries()
    .filter((entry) => entry.component === "worker" && entry.job_id === jobId)
    .map(({ message, outcome, delivery, permanent }) => ({
      message,
      outcome,
      delivery,
      permanent,
    }));
}

/** Waits until JetStream neither stores nor awaits an acknowledgement for any of `ids`. */
async function releasedByJetStream(ids: string[]) {
  await until(`JetStream to let go of ${ids.length} jobs`, async () => {
    const backlog = await registrationBacklog(stack().nats.natsUrl);
    return backlog.awaitingAck === 0 && !backlog.stored.some((id) => ids.includes(id));
  });
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
  const done = stack().db.transaction(async (tx) => {
    await tx.select({ id: jobs.id }).from(jobs).where(eq(jobs.id, jobId)).for("update");
    locked();
    await released;
  });
  return { isLocked, release, done };
}

/** Database sessions blocked on a row lock while selecting a job FOR UPDATE: a worker holding it. */
async function workersWaitingOnJobLock(): Promise<number> {
  const [row] = (await stack().db.execute(sql`
    select count(*)::int as n from pg_stat_activity
    where wait_event_type = 'Lock' and query ilike '%"app"."jobs"%for update%'
  `)) as unknown as { n: number }[];
  return row?.n ?? 0;
}

// Each test keys its own jobs, so they run at once.
describe.concurrent("a retried POST with the same Idempotency-Key creates one job", () => {
  const wallet = devAccount(30);
  const otherWallet = devAccount(31);

  async function jobsWithKey(account: HDAccount, options: RequestOptions): Promise<number> {
    const [row] = await stack()
      .db.select({ n: count() })
      .from(jobs)
      .where(
        and(
          eq(jobs.idempotencyKey, options.headers?.["idempotency-key"] as string),
          eq(sql`lower(${jobs.wallet})`, account.address.toLowerCase()),
        ),
      );
    return row?.n ?? 0;
  }

  it("answers a sequential retry with the same job, before and after it completes", async () => {
    const keyed = freshIdempotencyKey("retry");
    const body = manifest("idempotent-sequential");
    const first = await post(wallet, body, keyed);
    const second = await post(wallet, body, keyed);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body.job_id).toBe(first.body.job_id);
    expect(await jobsWithKey(wallet, keyed)).toBe(1);

    const [row] = await settled([first.body.job_id]);
    expect(row?.status).toBe("completed");
    const late = await post(wallet, body, keyed);
    expect(late.status).toBe(202);
    expect(late.body.job_id).toBe(first.body.job_id);
    // The retry reports the job's state; it never queues the work again.
    expect(["queued", "completed"]).toContain(late.body.status);
    expect(await jobsWithKey(wallet, keyed)).toBe(1);
  });

  it("answers 20 concurrent identical POSTs with one job and registers one agent", async () => {
    const keyed = freshIdempotencyKey("burst");
    const body = manifest("idempotent-concurrent");
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post(wallet, body, keyed)),
    );
    for (const response of responses) expect(response.status).toBe(202);
    const jobIds = new Set(responses.map((response) => response.body.job_id));
    expect(jobIds.size).toBe(1);
    expect(await jobsWithKey(wallet, keyed)).toBe(1);

    const [jobId] = [...jobIds] as [string];
    const [row] = await settled([jobId]);
    expect(row?.status).toBe("completed");
    const registered = await stack()
      .db.select({ id: agents.agentId })
      .from(agents)
      .where(sql`${agents.agentId} like 'idempotent-concurrent-%'`);
    expect(registered).toEqual([{ id: (row?.result as RegistrationResult | undefined)?.agent_id }]);
  });

  it("refuses the same key with a different body: 400 invalid_request, no new job", async () => {
    const keyed = freshIdempotencyKey("conflict");
    const first = await post(wallet, manifest("idempotent-original"), keyed);
    expect(first.status).toBe(202);
    const changed = await post(wallet, manifest("idempotent-changed"), keyed);
    expect(changed.status).toBe(400);
    expect(changed.body).toEqual({
      error: {
        code: "invalid_request",
        message: "This Idempotency-Key was already used with another body",
        status: 400,
      },
    });
    expect(await jobsWithKey(wallet, keyed)).toBe(1);
  });

  it("lets one of several concurrent different bodies under one key win, refusing the rest", async () => {
    const keyed = freshIdempotencyKey("race");
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        post(wallet, manifest(`idempotent-race-${index}`), keyed),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([202, ...Array(9).fill(400)]);
    expect(await jobsWithKey(wallet, keyed)).toBe(1);
  });

  it("scopes keys to the wallet, and without a key every POST is a new job", async () => {
    const keyed = freshIdempotencyKey("shared");
    const body = manifest("idempotent-scoped");
    const [mine, theirs] = await Promise.all([
      post(wallet, body, keyed),
      post(otherWallet, body, keyed),
    ]);
    expect([mine.status, theirs.status]).toEqual([202, 202]);
    expect(theirs.body.job_id).not.toBe(mine.body.job_id);

    const unkeyed = await Promise.all([post(wallet, body), post(wallet, body)]);
    expect(unkeyed[0]?.body.job_id).not.toBe(unkeyed[1]?.body.job_id);
    await settled([mine.body.job_id, theirs.body.job_id, ...unkeyed.map((r) => r.body.job_id)]);
  });

  it("refuses a malformed Idempotency-Key with 400 invalid_request", async () => {
    for (const key of ["has space", "x".repeat(256), "tab\tkey"]) {
      const response = await post(wallet, manifest("idempotent-bad-key"), {
        headers: { "idempotency-key": key },
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
    await Promise.all(wallets.map(as));
    const walletOf = (index: number) => wallets[index % wallets.length] as HDAccount;

    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        post(walletOf(index), manifest(`concurrent-${index}`)),
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
      jobIds.map(async (jobId, index) => (await as(walletOf(index))).get(`/v1/jobs/${jobId}`)),
    );
    for (const job of polled) expect(job.body.status).toBe("completed");
    const results = polled.map((job) => job.body.result as RegistrationResult);
    expect(new Set(results.map((result) => result.agent_id)).size).toBe(200);
    expect(new Set(results.map((result) => result.listing_id)).size).toBe(200);
    for (const [index, result] of results.entries()) {
      expect(result.agent_id).toMatch(new RegExp(`^concurrent-${index}-[0-9a-f]{8}$`));
    }
    for (const account of wallets) {
      const [owned] = await stack()
        .db.select({ n: count() })
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
    const doomed = worker;
    // The victim's row is locked before the paused worker can take it, so taking it blocks
    // mid-transaction: delivered, unacknowledged, held.
    const { victim, lock } = await whilePaused(doomed, async () => {
      const victim = await submit(creator, manifest("crash-victim"));
      const lock = holdJobRow(victim);
      await lock.isLocked;
      return { victim, lock };
    });
    const others = await Promise.all(
      Array.from({ length: 12 }, (_, index) => submit(creator, manifest(`crash-other-${index}`))),
    );
    await until("the worker to hold the victim", async () => (await workersWaitingOnJobLock()) > 0);

    // The new worker starts meanwhile; the victim comes to it only once redelivered.
    const replacement = stack().addWorker();
    doomed.kill("SIGKILL");
    await doomed.exited;
    const [held] = await jobRows([victim]);
    expect(held?.status).toBe("queued");
    lock.release();
    await lock.done;
    worker = await replacement;

    const ids = [victim, ...others];
    const rows = await expectCompletedExactlyOnce(creator, ids);
    // The victim was completed by the new worker, after its redelivery (its log line may reach us
    // a moment after its commit: logging is asynchronous).
    await until("the new worker to log completing the victim", () =>
      processedLines().some((line) => line.jobId === victim && line.outcome === "completed"),
    );

    // Stable: once JetStream holds nothing more to deliver for them, nothing has changed.
    await releasedByJetStream(ids);
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
    const doomed = worker;
    const before = processedLines().length;
    // The whole batch is queued before the worker takes any of it.
    const ids = await whilePaused(doomed, () =>
      Promise.all(
        Array.from({ length: 60 }, (_, index) => submit(creator, manifest(`batch-${index}`))),
      ),
    );
    await until("the worker to process a first job", () => processedLines().length > before);
    doomed.kill("SIGKILL");
    await doomed.exited;
    const [done] = await stack()
      .db.select({ n: count() })
      .from(jobs)
      .where(and(inArray(jobs.id, ids), eq(jobs.status, "queued")));
    expect(done?.n).toBeGreaterThan(0);

    worker = await stack().addWorker();
    await expectCompletedExactlyOnce(creator, ids);
  });

  it("a job delivered again after it completed (crash between commit and ack) is not redone", async () => {
    const creator = devAccount(52);
    const jobId = await submit(creator, manifest("redelivered"));
    const [row] = await settled([jobId]);
    expect(row?.status).toBe("completed");

    // What a redelivery looks like to the worker: the same job id again (another message id, so
    // JetStream's publish dedupe does not drop it).
    const bus = await createJetStreamBus(stack().nats.natsUrl);
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
    const [stored] = await stack()
      .db.select({ wallet: jobs.wallet })
      .from(jobs)
      .where(eq(jobs.id, reference));
    const body = JSON.stringify(manifest("outbox-orphan"));
    const jobId = `job_${randomBytes(12).toString("hex")}`;
    await stack()
      .db.insert(jobs)
      .values({
        id: jobId,
        wallet: stored?.wallet as string,
        kind: "registration",
        status: "queued",
        requestHash: "not-used-without-an-idempotency-key",
        request: seal(parseSecretKey(SEALING_KEY), Buffer.from(body), jobId),
        // Stored a minute ago: long past the moments its own request would still be publishing it.
        createdAt: new Date(Date.now() - 60_000),
      });

    const [row] = await settled([jobId], 30_000);
    expect(row?.publishedAt).not.toBeNull();
    await expectCompletedExactlyOnce(creator, [reference, jobId]);
    // Log lines are written asynchronously: the relay's may follow the job's completion.
    await until("the relay's log line", () =>
      output.text().includes('"message":"outbox relay published jobs"'),
    );
    const job = await (await as(creator)).get(`/v1/jobs/${jobId}`);
    expect(job.body).toMatchObject({ job_id: jobId, status: "completed" });
  });

  it("NATS restarting mid-run loses no accepted job, stored in JetStream or in the outbox", {
    timeout: 240_000,
  }, async () => {
    const creator = devAccount(61);
    const { nats } = stack();
    const outputBefore = output.text().length;
    const storedIn = async () => (await registrationBacklog(nats.natsUrl)).stored;

    // The worker is paused through the outage, so what JetStream took stays in its store.
    const { inStream, ids } = await whilePaused(worker, async () => {
      const inStream = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          submit(creator, manifest(`restart-stored-${index}`)),
        ),
      );
      for (const row of await jobRows(inStream)) expect(row.publishedAt).not.toBeNull();
      expect(await storedIn()).toEqual(expect.arrayContaining(inStream));

      // Registrations in flight as NATS goes down, and more while it is down: all accepted.
      const inFlight = Array.from({ length: 20 }, (_, index) =>
        post(creator, manifest(`restart-inflight-${index}`)),
      );
      await nats.stopServer();
      const duringOutage = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          post(creator, manifest(`restart-outage-${index}`)),
        ),
      );
      const responses = [...(await Promise.all(inFlight)), ...duringOutage];
      for (const response of responses) {
        expect(response.status, JSON.stringify(response.body)).toBe(202);
      }
      const ids = responses.map((response) => response.body.job_id as string);
      const unpublished = (await jobRows(ids)).filter((row) => row.publishedAt === null);
      expect(unpublished.length).toBeGreaterThanOrEqual(duringOutage.length);
      // Log lines are written asynchronously: the API's may follow its answer.
      await until("the API's log of a job left to the outbox relay", () =>
        output.text().slice(outputBefore).includes("the outbox relay will publish it"),
      );

      await nats.startServer();
      // JetStream kept what it had stored through the restart.
      const kept = await until("JetStream to answer again", () =>
        storedIn().catch(() => undefined),
      );
      expect(kept).toEqual(expect.arrayContaining(inStream));
      return { inStream, ids };
    });

    await expectCompletedExactlyOnce(creator, [...inStream, ...ids]);
    await until("the relay's log line", () =>
      output.text().slice(outputBefore).includes('"message":"outbox relay published jobs"'),
    );

    // The same processes keep working after the restart.
    const after = await submit(creator, manifest("restart-after"));
    await expectCompletedExactlyOnce(creator, [...inStream, ...ids, after]);
  });
});

describe("a failure no retry can fix fails the job on its first delivery", () => {
  it("a manifest that breaks a rule is rejected by one processing, without a failed attempt", async () => {
    const creator = devAccount(70);
    const jobId = await submit(creator, manifest("Not Kebab Case"));
    const job = await settledJob(await as(creator), jobId);
    expect(job.body).toMatchObject({ status: "failed", error: { code: "manifest_rejected" } });

    await releasedByJetStream([jobId]);
    await until("the worker's log of it", () => workerLogOf(jobId).length > 0);
    expect(workerLogOf(jobId)).toEqual([{ message: "registration processed", outcome: "failed" }]);
  });

  it("a request sealed with another key than the worker's fails at once as internal_error", async () => {
    const creator = devAccount(71);
    // An API whose SEALING_KEY differs from the worker's: the worker cannot open what it seals.
    const sealingElsewhere = await stack().addApi({ SEALING_KEY: randomBytes(32).toString("hex") });
    try {
      const client = http(sealingElsewhere.url, {
        bearer: await signIn(sealingElsewhere.url, creator),
      });
      const jobId = await registerAgent(client, manifest("sealed-elsewhere"));
      const job = await settledJob(client, jobId);
      expect(job.body).toEqual({
        job_id: jobId,
        status: "failed",
        error: { code: "internal_error", message: expect.any(String) },
      });

      // Terminated rather than retried: JetStream lets go of it after one attempt.
      await releasedByJetStream([jobId]);
      await until("the worker's log of it", () => workerLogOf(jobId).length > 0);
      expect(workerLogOf(jobId)).toEqual([
        { message: "registration attempt failed", delivery: 1, permanent: true },
      ]);
    } finally {
      await sealingElsewhere.stop();
    }
  });
});
