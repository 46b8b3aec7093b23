// `POST /v1/execute/stream` against the spec's Events: `text/event-stream`, `output` events
// `{delta}` as the agent produces them, exactly one terminal `done` (with the partial output when
// the run failed), comment lines while idle, HTTP 200 whatever the outcome; a stream that starts
// only once its run holds a slot; a client that leaves and a run that goes on. The worker and the
// settlement are played by test/support/runSteps.ts (the debit is a real `consumeQuery`).
import { parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { ONE_TIME, PER_QUERY } from "../devStack/marketplace.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { RUNS_IN_FLIGHT_PER_LISTING } from "../lib/runLedger/grantSlots.ts";
import { expectError } from "../test/support/http.ts";
import {
  agentDrafts,
  listingIdsByKey,
  oneTimePurchase,
  perTaskDeposit,
  publishListings,
} from "../test/support/listingFixtures.ts";
import { mineIndexedBlock } from "../test/support/mineBlock.ts";
import { nextRunOf, runIdsOf, waitForRun } from "../test/support/runRows.ts";
import {
  completeRun,
  finishRun,
  interruptRun,
  refuseWaiting,
  sendDelta,
  startRun,
} from "../test/support/runSteps.ts";
import { eventsOf, type SseItem, sseReader } from "../test/support/sseEvents.ts";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";
import { useStack } from "../test/support/useStack.ts";

const creator = devAccount(2);
const renter = devAccount(3);
const crowd = devAccount(4); // fills a listing's slots

const PRICE = parseEther("0.01");
/** Above 2^53 and odd: only an exact integer literal carries it. */
const TASK_PRICE = 10_000_000_000_000_001n;
const HEARTBEAT_MS = 100;

const stack = useStack({ chain: true, postgres: true, ponder: true });
let app: TestApp;

const draft = agentDrafts(creator, {
  seedPrefix: "stream",
  category: "content",
  described: "streamed",
});

const drafts = {
  writer: draft("writer", ONE_TIME, PRICE),
  counter: draft("counter", PER_QUERY, TASK_PRICE),
  busy: draft("busy", ONE_TIME, PRICE),
};
const listings = listingIdsByKey(drafts);

beforeAll(async () => {
  app = createTestApp(stack(), { streamHeartbeatMs: HEARTBEAT_MS });
  await publishListings(stack(), Object.values(drafts));
  await mineIndexedBlock(stack(), [
    oneTimePurchase(renter, listings.writer, PRICE),
    oneTimePurchase(renter, listings.busy, PRICE),
    oneTimePurchase(crowd, listings.busy, PRICE),
    perTaskDeposit(renter, listings.counter, TASK_PRICE, 5n),
  ]);
});

const task = "Write a haiku";
const deps = () => app.deps;

async function post(
  account: HDAccount,
  path: string,
  body: Record<string, unknown>,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
) {
  return app.app.request(path, {
    method: "POST",
    signal: init.signal,
    headers: {
      authorization: `Bearer ${await app.tokenFor(account)}`,
      "content-type": "application/json",
      ...init.headers,
    },
    body: JSON.stringify(body),
  });
}

/** Opens a stream; resolves with its response and run once the run holds a slot. */
async function openStream(
  body: Record<string, unknown>,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
) {
  const known = await runIdsOf(deps(), renter.address);
  const response = post(renter, "/v1/execute/stream", body, init);
  const run = await nextRunOf(deps(), renter.address, known);
  return { response: await response, run };
}

/** Holds the stream to the Events table: the shape of every item, and `done` once and last. */
function expectConformingStream(items: SseItem[]) {
  for (const item of items) {
    if ("comment" in item) {
      expect(item.comment).toBe("heartbeat");
      continue;
    }
    expect(["output", "done"]).toContain(item.event);
    const data = JSON.parse(item.data);
    if (item.event === "output") expect(data).toStrictEqual({ delta: expect.any(String) });
  }
  const events = eventsOf(items);
  expect(events.filter(({ event }) => event === "done")).toHaveLength(1);
  expect(events.at(-1)?.event).toBe("done");
  const done = events.at(-1)?.data;
  const fields = ["run_id", "status", "cost_wei", "duration_ms"];
  expect(Object.keys(done).sort()).toEqual(
    (done.status === "failed" ? [...fields, "output"] : fields).sort(),
  );
  expect(done).toMatchObject({
    run_id: expect.stringMatching(/^run_[0-9a-f]{24}$/),
    status: expect.stringMatching(/^(completed|failed)$/),
    cost_wei: expect.any(Number),
    duration_ms: expect.any(Number),
  });
}

describe("POST /v1/execute/stream", () => {
  it("streams the deltas as output events, then done once, last, and ends", async () => {
    const { response, run } = await openStream({ agent_id: listings.writer.id, task });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    const stream = sseReader(response);

    await startRun(deps(), run.id);
    for (const delta of ["An old pond, ", "a frog ", "jumps in"]) sendDelta(deps(), run.id, delta);
    const firstEvents: SseItem[] = [];
    while (eventsOf(firstEvents).length < 3) {
      const item = await stream.next();
      if (item) firstEvents.push(item);
    }
    await finishRun(deps(), run.id, {
      status: "completed",
      output: "An old pond, a frog jumps in",
    });
    const items = [...firstEvents, ...(await stream.rest())];

    expectConformingStream(items);
    expect(eventsOf(items)).toEqual([
      { event: "output", data: { delta: "An old pond, " } },
      { event: "output", data: { delta: "a frog " } },
      { event: "output", data: { delta: "jumps in" } },
      {
        event: "done",
        data: { run_id: run.id, status: "completed", cost_wei: 0, duration_ms: 1234 },
      },
    ]);
  });

  it("sends what the lost deltas held before done, from the stored output", async () => {
    const { response, run } = await openStream({ agent_id: listings.writer.id, task });
    const stream = sseReader(response);
    await startRun(deps(), run.id);
    sendDelta(deps(), run.id, "Hello");
    expect(await stream.nextEvent()).toEqual({ event: "output", data: '{"delta":"Hello"}' });
    // The last deltas never arrive; the row has the whole output.
    await finishRun(deps(), run.id, { status: "completed", output: { text: "Hello, world" } });
    const items = await stream.rest();
    expectConformingStream(items);
    expect(eventsOf(items)).toEqual([
      {
        event: "done",
        data: { run_id: run.id, status: "completed", cost_wei: 0, duration_ms: 1234 },
      },
    ]);

    // A structured output is spelled as JSON: streamed from nothing, it comes whole.
    const again = await openStream({ agent_id: listings.writer.id, task });
    const whole = sseReader(again.response);
    await startRun(deps(), again.run.id);
    await finishRun(deps(), again.run.id, { status: "completed", output: { text: "Hi" } });
    expect(eventsOf(await whole.rest())).toEqual([
      { event: "output", data: { delta: '{"text":"Hi"}' } },
      {
        event: "done",
        data: { run_id: again.run.id, status: "completed", cost_wei: 0, duration_ms: 1234 },
      },
    ]);
  });

  it("streams nothing past a lost delta: the rest comes from the stored output, so the text is the output's", async () => {
    const { response, run } = await openStream({ agent_id: listings.writer.id, task });
    const stream = sseReader(response);
    await startRun(deps(), run.id);
    sendDelta(deps(), run.id, "An old", 0);
    expect(await stream.nextEvent()).toMatchObject({ event: "output" });
    // " pond, " is lost; what follows it is not sent on its own.
    sendDelta(deps(), run.id, "a frog", 13);
    sendDelta(deps(), run.id, " jumps in", 19);
    await finishRun(deps(), run.id, {
      status: "completed",
      output: "An old pond, a frog jumps in",
    });
    expect(eventsOf(await stream.rest())).toEqual([
      { event: "output", data: { delta: " pond, a frog jumps in" } },
      {
        event: "done",
        data: { run_id: run.id, status: "completed", cost_wei: 0, duration_ms: 1234 },
      },
    ]);
  });

  // The run streams "An old", then fails (its worker announced `lost` too, a notice lost on the
  // way, or it died and the sweeper ended it); done carries `output`.
  it.each([
    {
      name: "ends a run failed mid-stream with done: failed, the partial output, still HTTP 200",
      lost: " pond",
      failure: "the agent timed out",
      output: "An old pond",
    },
    {
      name: "ends a run whose worker died with done: failed and what was streamed, which the sweeper never saw",
      lost: "",
      failure: undefined,
      output: "An old",
    },
  ])("$name", async ({ lost, failure, output }) => {
    const { response, run } = await openStream({ agent_id: listings.writer.id, task });
    expect(response.status).toBe(200);
    const stream = sseReader(response);
    await startRun(deps(), run.id);
    sendDelta(deps(), run.id, "An old");
    expect(await stream.nextEvent()).toMatchObject({ event: "output" });
    if (failure) {
      sendDelta(deps(), run.id, lost, undefined, { lost: true });
      await finishRun(deps(), run.id, { status: "failed", failure });
    } else {
      await interruptRun(deps(), run.id);
    }
    const items = await stream.rest();
    expectConformingStream(items);
    expect(eventsOf(items)).toEqual([
      {
        event: "done",
        data: {
          run_id: run.id,
          status: "failed",
          cost_wei: 0,
          duration_ms: expect.any(Number),
          output,
        },
      },
    ]);
  });

  it("writes a comment line while the run is idle", async () => {
    const { response, run } = await openStream({ agent_id: listings.writer.id, task });
    const stream = sseReader(response);
    await startRun(deps(), run.id);
    expect(await stream.next()).toEqual({ comment: "heartbeat" });
    expect(await stream.next()).toEqual({ comment: "heartbeat" });
    await finishRun(deps(), run.id, { status: "completed", output: "done" });
    expectConformingStream(await stream.rest());
  });

  it("per task: done follows the debit, its cost_wei an exact integer", async () => {
    const { response, run } = await openStream({ agent_id: listings.counter.id, task });
    const stream = sseReader(response);
    await completeRun(deps(), stack(), run.id, "7");
    const items = await stream.rest();
    expectConformingStream(items);
    const done = items.at(-1);
    expect(done && "data" in done && done.data).toBe(
      `{"run_id":"${run.id}","status":"completed","cost_wei":${TASK_PRICE},"duration_ms":1234}`,
    );
  });

  it("replays a finished run under its Idempotency-Key: its whole output, then done", async () => {
    const headers = { "idempotency-key": "haiku-1" };
    const first = await openStream({ agent_id: listings.writer.id, task }, { headers });
    await completeRun(deps(), stack(), first.run.id, "Old pond");
    await sseReader(first.response).rest();

    const replay = await post(
      renter,
      "/v1/execute/stream",
      {
        agent_id: listings.writer.id,
        task,
      },
      { headers },
    );
    expect(eventsOf(await sseReader(replay).rest())).toEqual([
      { event: "output", data: { delta: "Old pond" } },
      {
        event: "done",
        data: { run_id: first.run.id, status: "completed", cost_wei: 0, duration_ms: 1234 },
      },
    ]);
  });

  it("leaves the run going when the client leaves; it is charged and kept", async () => {
    const { response, run } = await openStream({ agent_id: listings.counter.id, task });
    const stream = sseReader(response);
    await startRun(deps(), run.id);
    sendDelta(deps(), run.id, "1, 2");
    await stream.next();
    await stream.cancel();

    await completeRun(deps(), stack(), run.id, "1, 2, 3");
    const kept = await app.http(await app.tokenFor(renter)).get(`/v1/runs/${run.id}`);
    expect(kept.body).toMatchObject({ run_id: run.id, status: "completed", output: "1, 2, 3" });
    expect((await waitForRun(deps(), run.id, (row) => row.charge === "debited")).costWei).toBe(
      TASK_PRICE.toString(),
    );
  });
});

describe("a stream whose run waits for a slot", () => {
  it("starts once the run holds one, and is 503 when none freed in time", async () => {
    // Every slot of the listing taken by the crowd's runs.
    const known = await runIdsOf(deps(), crowd.address);
    const crowdReplies = Array.from({ length: RUNS_IN_FLIGHT_PER_LISTING }, () =>
      post(crowd, "/v1/execute", { agent_id: listings.busy.id, task }),
    );
    const taken: string[] = [];
    while (taken.length < RUNS_IN_FLIGHT_PER_LISTING) {
      taken.push((await nextRunOf(deps(), crowd.address, [...known, ...taken])).id);
    }
    for (const id of taken) await waitForRun(deps(), id, (row) => row.status === "queued");

    const refused = post(renter, "/v1/execute/stream", { agent_id: listings.busy.id, task });
    const before = await runIdsOf(deps(), renter.address);
    const waiting = await nextRunOf(deps(), renter.address, before);
    expect(waiting.status).toBe("waiting");
    await refuseWaiting(deps());
    const answer = await refused;
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.headers.get("retry-after")).toBe("5");
    expectError({ status: answer.status, body: await answer.json() }, 503, "service_unavailable");

    const next = openStream({ agent_id: listings.busy.id, task });
    const queuedLater = await nextRunOf(deps(), renter.address, [...before, waiting.id]);
    expect(queuedLater.status).toBe("waiting");
    // A crowd run ends: its slot goes to the waiting run, whose stream starts.
    await completeRun(deps(), stack(), taken[0] as string, "done");
    const { response, run } = await next;
    expect(run.id).toBe(queuedLater.id);
    expect(response.status).toBe(200);
    await completeRun(deps(), stack(), run.id, "at last");
    expectConformingStream(await sseReader(response).rest());

    for (const id of taken.slice(1)) await completeRun(deps(), stack(), id, "done");
    expect((await Promise.all(crowdReplies)).map((reply) => reply.status)).toEqual(
      taken.map(() => 200),
    );
  });
});

describe("an answer that does not come in time (a worker or the settlement down)", () => {
  it("is 503 naming the run, or an error event ending the stream; the run is kept", async () => {
    const late = createTestApp(stack(), { runAnswerGraceMs: 200 });
    const bearer = await late.tokenFor(renter);
    const body = { agent_id: listings.writer.id, task, timeout_seconds: 1 };
    const request = (path: string) =>
      late.app.request(path, {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    const known = await runIdsOf(late.deps, renter.address);
    const sync = await request("/v1/execute");
    const [syncRun] = (await runIdsOf(late.deps, renter.address)).filter(
      (id) => !known.includes(id),
    );
    expect(sync.headers.get("retry-after")).toBe("5");
    const refused = {
      status: sync.status,
      body: (await sync.json()) as { error: { message: string } },
    };
    expectError(refused, 503, "service_unavailable");
    expect(refused.body.error.message).toContain(`GET /v1/runs/${syncRun}`);

    const stream = await request("/v1/execute/stream");
    expect(stream.status).toBe(200);
    const items = await sseReader(stream).rest();
    expect(eventsOf(items)).toEqual([
      {
        event: "error",
        data: {
          error: {
            code: "service_unavailable",
            message: expect.stringMatching(/^Run run_[0-9a-f]{24} is still going/),
            status: 503,
          },
        },
      },
    ]);

    for (const id of (await runIdsOf(late.deps, renter.address)).filter(
      (id) => !known.includes(id),
    )) {
      await completeRun(late.deps, stack(), id, "late");
      expect((await late.http(bearer).get(`/v1/runs/${id}`)).body.status).toBe("completed");
    }
  });
});
