// The run worker and its sweeper over each bus (in-process and NATS JetStream) and a real Postgres,
// with scripted agents: a run's outcome, its charge and its notices; what happens to runs whose
// agent hangs, throws or answers off-schema, and to runs a crash would strand.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bus } from "../../lib/bus/bus.ts";
import { createInProcessBus } from "../../lib/bus/inProcessBus.ts";
import { createJetStreamBus } from "../../lib/bus/jetStreamBus.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { createLogger } from "../../lib/log.ts";
import { grantSlots } from "../../lib/runLedger/grantSlots.ts";
import {
  decodeNotice,
  type RunNotice,
  runTopic,
  SETTLEMENT_TOPIC,
} from "../../lib/runLedger/notices.ts";
import { RUN_SUBJECT } from "../../lib/runLedger/publishRun.ts";
import {
  outputMismatch,
  RUN_INTERNAL_ERROR,
  RUN_INTERRUPTED,
  runTimedOut,
} from "../../lib/runLedger/runFailures.ts";
import { RUN_NOT_STARTED } from "../../lib/runLedger/runNotStarted.ts";
import { startExecution } from "../../workers/execution/startExecution.ts";
import { until } from "../support/registration.ts";
import {
  untilRunCommandsSettledInProcess,
  untilRunCommandsSettledOnNats,
} from "../support/runCommandsSettled.ts";
import {
  admit,
  ended,
  insertWaitingRuns,
  reached,
  registeredAgent,
  runRows,
} from "../support/runs.ts";
import { scripted, scriptedRuntime } from "../support/scriptedAgent.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ chain: false, nats: true });

const LEASE_MS = 1_500;
const QUEUE_WAIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A bus, and a wait until no run command on it can be delivered again. */
type SettlingBus = { bus: Bus; settled: () => Promise<void> };

describe.each([
  [
    "the in-process bus",
    async (): Promise<SettlingBus> => {
      const bus = createInProcessBus();
      return { bus, settled: () => untilRunCommandsSettledInProcess(bus) };
    },
  ],
  [
    "NATS JetStream",
    async (): Promise<SettlingBus> => {
      const natsUrl = stack().nats.natsUrl;
      const bus = await createJetStreamBus(natsUrl);
      return { bus, settled: () => untilRunCommandsSettledOnNats(natsUrl) };
    },
  ],
])("runs over %s", (_busName, createBus: () => Promise<SettlingBus>) => {
  let bus: Bus;
  /** Resolves once every command is settled: an agent call counted after it is the last there is. */
  let settled: () => Promise<void>;
  let execution: { stop: () => Promise<void> };
  const calls = new Map<string, number>();
  const logLines: string[] = [];
  const db = () => stack().db;
  const deps = () => ({ db: db(), bus });

  beforeAll(async () => {
    ({ bus, settled } = await createBus());
    const agent = scriptedRuntime((run) => calls.set(run.runId, (calls.get(run.runId) ?? 0) + 1));
    execution = await startExecution({
      db: db(),
      bus,
      log: createLogger("worker", (line) => logLines.push(line)),
      runtimeFor: () => agent,
      concurrency: 32,
      leaseMs: LEASE_MS,
      queueWaitMs: QUEUE_WAIT_MS,
      sweepIntervalMs: 200,
    });
  });
  afterAll(async () => {
    await execution?.stop();
    await bus?.close();
  });

  /** Notices on `topic` from now on, decoded, in the order heard. */
  async function hear(topic: string) {
    const heard: RunNotice[] = [];
    const subscription = bus.listen(topic, (data) => heard.push(decodeNotice(data)));
    await sleep(100); // a NATS subscription is in place once the server has it
    return { heard, stop: () => subscription.stop() };
  }

  /** A listing whose 20 slots are held by runs of a worker that never ends them. */
  async function fullListing(): Promise<string> {
    const listing = await registeredAgent(db());
    const ids = await insertWaitingRuns(
      db(),
      Array.from({ length: 20 }, () => ({ listing, task: scripted({}) })),
    );
    for (const id of ids) {
      await db()
        .update(runs)
        .set({
          status: "running",
          startedAt: sql`now()`,
          leaseUntil: sql`now() + interval '1 hour'`,
        })
        .where(eq(runs.id, id));
    }
    return listing;
  }

  describe("a run's outcome", () => {
    it("completes a per-task run: output kept, request dropped, reservation to debit, settlement woken", async () => {
      const listing = await registeredAgent(db());
      const [id] = await insertWaitingRuns(db(), [
        { listing, task: scripted({ output: "looks good" }), rentalModel: "per_query" },
      ]);
      const settlement = await hear(SETTLEMENT_TOPIC);
      const notices = await hear(runTopic(id as string));
      await grantSlots(deps(), listing);

      const [run] = await ended(db(), [id as string]);
      expect(run).toMatchObject({
        status: "completed",
        output: "looks good",
        failure: null,
        charge: "debit_pending",
        request: null,
        leaseUntil: null,
      });
      expect(run?.durationMs).toBeGreaterThanOrEqual(0);
      expect(run?.startedAt?.getTime()).toBeLessThanOrEqual(run?.finishedAt?.getTime() ?? 0);
      await until("the notices", () => notices.heard.length >= 3 && settlement.heard.length > 0);
      // Granted a slot, taken by a worker, ended: each saying what it wrote; the end, the answer its
      // debit will complete.
      expect(notices.heard).toEqual([
        { kind: "changed", status: "queued" },
        { kind: "changed", status: "running" },
        {
          kind: "changed",
          status: "completed",
          charge: "debit_pending",
          answer: expect.objectContaining({
            id,
            status: "completed",
            charge: "debit_pending",
            output: "looks good",
            costWei: "0",
          }),
        },
      ]);
      await settled();
      expect(calls.get(id as string)).toBe(1);
      await Promise.all([notices.stop(), settlement.stop()]);
    });

    it("leaves the charge of a run charged otherwise as it is; a failed run's reservation is charged iff it streamed output", async () => {
      const listing = await registeredAgent(db());
      const ids = await admit(deps(), [
        { listing, task: scripted({ output: "done" }), rentalModel: "one_time" },
        { listing, task: scripted({ output: "done" }), rentalModel: "subscription" },
        {
          listing,
          task: scripted({ deltas: ["half "], fail: "the repository is private" }),
          rentalModel: "per_query",
        },
        {
          listing,
          task: scripted({ fail: "the repository is private" }),
          rentalModel: "per_query",
        },
      ]);
      const rows = await ended(db(), ids);
      expect(
        rows.map(({ status, charge, output, failure }) => ({ status, charge, output, failure })),
      ).toEqual([
        { status: "completed", charge: "none", output: "done", failure: null },
        { status: "completed", charge: "none", output: "done", failure: null },
        {
          status: "failed",
          charge: "debit_pending",
          output: "half ",
          failure: "the repository is private",
        },
        { status: "failed", charge: "released", output: "", failure: "the repository is private" },
      ]);
    });

    it("tells a listener every delta, in order, then that the run changed", async () => {
      const listing = await registeredAgent(db());
      const deltas = Array.from({ length: 50 }, (_, n) => `${n} `);
      const [id] = await insertWaitingRuns(db(), [{ listing, task: scripted({ deltas }) }]);
      const notices = await hear(runTopic(id as string));
      await grantSlots(deps(), listing);

      const [run] = await ended(db(), [id as string]);
      expect(run?.output).toBe(deltas.join(""));
      await until("every notice", () => notices.heard.length >= deltas.length + 3);
      expect(notices.heard).toEqual([
        { kind: "changed", status: "queued" },
        { kind: "changed", status: "running" },
        ...deltas.map((delta, n) => ({
          kind: "delta",
          delta,
          at: deltas.slice(0, n).join("").length,
        })),
        // The end carries the answer, as the row holds it: whoever waits needs no read.
        {
          kind: "changed",
          status: "completed",
          charge: "none",
          answer: {
            id,
            onChainListingId: run?.onChainListingId,
            status: "completed",
            charge: "none",
            output: deltas.join(""),
            failure: null,
            costWei: "0",
            reservedWei: "0",
            durationMs: run?.durationMs,
            outputTruncated: false,
            outputSha256: null,
          },
        },
      ]);
      await notices.stop();
    });

    it("keeps an output that matches output_schema as JSON", async () => {
      const listing = await registeredAgent(db(), findingsSchema);
      const output = { findings: [{ line: 3, note: "unused variable" }] };
      const [run] = await ended(
        db(),
        await admit(deps(), [{ listing, task: scripted({ output }) }]),
      );
      expect(run).toMatchObject({ status: "completed", output });
    });

    it("keeps a text output that spells JSON as the text it is", async () => {
      const listing = await registeredAgent(db(), { type: "string" });
      const outputs = ["42", '{"findings":[]}', "[1, 2]", "null"];
      const runs = await ended(
        db(),
        await admit(
          deps(),
          outputs.map((output) => ({ listing, task: scripted({ output }) })),
        ),
      );
      expect(runs.map((run) => run.output)).toEqual(outputs);
    });
  });

  describe("an agent that misbehaves fails its run, charging only what it streamed", () => {
    it("fails an output that does not match output_schema, naming the path", async () => {
      const listing = await registeredAgent(db(), findingsSchema);
      const text = await registeredAgent(db(), { type: "string" });
      const ids = await admit(deps(), [
        {
          listing,
          task: scripted({ output: { findings: [{ line: 3 }, { note: "no line" }] } }),
          rentalModel: "per_query",
        },
        { listing, task: scripted({ output: { findings: [{ line: "3" }] } }) },
        {
          listing: text,
          task: scripted({ output: { text: "not text" } }),
          rentalModel: "per_query",
        },
      ]);
      const rows = await ended(db(), ids);
      expect(rows.map(({ status, charge, failure }) => ({ status, charge, failure }))).toEqual([
        {
          status: "failed",
          charge: "released",
          failure: outputMismatch("output.findings[1].line", "is required"),
        },
        {
          status: "failed",
          charge: "none",
          failure: outputMismatch("output.findings[0].line", "must be integer"),
        },
        {
          status: "failed",
          charge: "released",
          failure: outputMismatch("output", "must be string"),
        },
      ]);
    });

    it("fails an output the database cannot store (a NUL, a lone surrogate)", async () => {
      const listing = await registeredAgent(db(), { type: "string" });
      const ids = await admit(deps(), [
        { listing, task: scripted({ output: "a\u0000b" }), rentalModel: "per_query" },
        { listing, task: scripted({ output: "a\ud800b" }), rentalModel: "per_query" },
      ]);
      const rows = await ended(db(), ids);
      expect(rows.map(({ status, charge, failure }) => ({ status, charge, failure }))).toEqual([
        { status: "failed", charge: "released", failure: "the output contains the NUL character" },
        { status: "failed", charge: "released", failure: RUN_INTERNAL_ERROR },
      ]);
    });

    it("fails a run whose agent hangs past the deadline, keeping and charging what it streamed", async () => {
      const listing = await registeredAgent(db());
      const started = Date.now();
      const [id] = await admit(deps(), [
        {
          listing,
          task: scripted({ deltas: ["part", "ial"], hang: true }),
          timeoutSeconds: 1,
          rentalModel: "per_query",
        },
      ]);
      const [run] = await ended(db(), [id as string]);
      expect(run).toMatchObject({
        status: "failed",
        failure: runTimedOut(1),
        output: "partial",
        charge: "debit_pending",
      });
      expect(run?.durationMs).toBeGreaterThanOrEqual(1_000);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it("fails a run whose runtime throws, once, with no detail for the renter", async () => {
      const listing = await registeredAgent(db());
      const secret = "https://hooks.example/agent?token=s3cr3t";
      const [id] = await admit(deps(), [
        {
          listing,
          task: scripted({ throws: `connect ECONNREFUSED ${secret}` }),
          rentalModel: "per_query",
        },
      ]);
      const [run] = await ended(db(), [id as string]);
      expect(run).toMatchObject({
        status: "failed",
        failure: RUN_INTERNAL_ERROR,
        charge: "released",
      });
      expect(JSON.stringify(run)).not.toContain("s3cr3t");
      await settled();
      expect(calls.get(id as string)).toBe(1);
      expect(
        logLines.some((line) => line.includes("the runtime failed") && line.includes(id as string)),
      ).toBe(true);
    });
  });

  describe("a command delivered again", () => {
    it("does nothing for a run that has ended", async () => {
      const listing = await registeredAgent(db());
      const [id] = await admit(deps(), [
        { listing, task: scripted({ output: "once" }), rentalModel: "per_query" },
      ]);
      const [before] = await ended(db(), [id as string]);
      // Another message id: the bus delivers it, as it would a redelivery.
      await bus.publish(RUN_SUBJECT, `${id}-again`, new TextEncoder().encode(id));
      await settled();
      expect(await runRows(db(), [id as string])).toEqual([before]);
      expect(calls.get(id as string)).toBe(1);
    });

    it("does nothing for a run another delivery is running", async () => {
      const listing = await registeredAgent(db());
      const [id] = await admit(deps(), [{ listing, task: scripted({ sleepMs: 1_500 }) }]);
      await reached(db(), id as string, "running");
      await bus.publish(RUN_SUBJECT, `${id}-again`, new TextEncoder().encode(id));
      await ended(db(), [id as string]);
      await settled();
      expect(calls.get(id as string)).toBe(1);
    });
  });

  describe("slots and priority", () => {
    it("starts priority runs waiting behind a full listing before standard ones that waited longer", async () => {
      const listing = await registeredAgent(db());
      // The first six blockers end one at a time, each freeing one slot; the others outlast them.
      const blockers = await admit(
        deps(),
        Array.from({ length: 20 }, (_, n) => ({
          listing,
          task: scripted({ sleepMs: n < 6 ? 800 + 300 * n : 4_000 }),
        })),
      );
      const standard = await admit(
        deps(),
        Array.from({ length: 3 }, () => ({ listing, task: scripted({ sleepMs: 3_000 }) })),
      );
      const priority = await admit(
        deps(),
        Array.from({ length: 3 }, () => ({
          listing,
          task: scripted({ sleepMs: 3_000 }),
          priority: "priority" as const,
        })),
      );
      const waiters = [...priority, ...standard];
      expect((await runRows(db(), waiters)).map((run) => run.status)).toEqual(
        Array(6).fill("waiting"),
      );

      const rows = await ended(db(), [...blockers, ...waiters]);
      expect(rows.every((run) => run.status === "completed")).toBe(true);
      const startOf = (ids: string[]) =>
        rows.filter((run) => ids.includes(run.id)).map((run) => run.startedAt?.getTime() ?? 0);
      expect(Math.max(...startOf(priority))).toBeLessThan(Math.min(...startOf(standard)));
      // Each waiter started only once a blocker had ended.
      const firstEnd = Math.min(...rows.map((run) => run.finishedAt?.getTime() ?? Infinity));
      expect(Math.min(...startOf(waiters))).toBeGreaterThanOrEqual(firstEnd);
    });
  });

  describe("the sweeper", () => {
    it("fails a run whose worker's lease ran out, releases it, and never runs it again", async () => {
      const listing = await registeredAgent(db());
      const [id] = await insertWaitingRuns(db(), [
        { listing, task: scripted({ output: "never" }), rentalModel: "per_query" },
      ]);
      const notices = await hear(runTopic(id as string));
      // As a worker that died mid-run leaves it.
      await db()
        .update(runs)
        .set({
          status: "running",
          startedAt: sql`now() - interval '5 seconds'`,
          leaseUntil: sql`now() - interval '1 millisecond'`,
        })
        .where(eq(runs.id, id as string));

      const [run] = await ended(db(), [id as string]);
      expect(run).toMatchObject({
        status: "failed",
        failure: RUN_INTERRUPTED,
        charge: "released",
        request: null,
        leaseUntil: null,
      });
      expect(run?.durationMs).toBeGreaterThanOrEqual(5_000);
      await until("the notice", () => notices.heard.length > 0);
      expect(notices.heard).toEqual([{ kind: "changed" }]);
      await bus.publish(RUN_SUBJECT, `${id}-again`, new TextEncoder().encode(id));
      await settled();
      expect(calls.get(id as string)).toBeUndefined();
      await notices.stop();
    });

    it("refuses a run still waiting after RUN_QUEUE_WAIT_MS, charging nothing", async () => {
      const listing = await fullListing();
      const [recent, expired] = await insertWaitingRuns(db(), [
        { listing, task: scripted({}), rentalModel: "per_query", ageMs: QUEUE_WAIT_MS - 3_000 },
        { listing, task: scripted({}), rentalModel: "per_query", ageMs: QUEUE_WAIT_MS + 100 },
      ]);
      const notices = await hear(runTopic(expired as string));
      const [run] = await ended(db(), [expired as string]);
      expect(run).toMatchObject({
        status: "failed",
        failure: RUN_NOT_STARTED,
        charge: "released",
        startedAt: null,
        request: null,
      });
      await until("the notice", () => notices.heard.length > 0);
      expect((await runRows(db(), [recent as string]))[0]?.status).toBe("waiting");
      expect(calls.get(expired as string)).toBeUndefined();
      await notices.stop();
    });

    it("runs a queued run whose command was lost, and a waiting run whose grant was lost", async () => {
      const listing = await registeredAgent(db());
      // The first was granted, but its process died before it published; inserted so at once, since
      // the sweeper may take a run the moment it is waiting.
      const [lostPublish, lostGrant] = await insertWaitingRuns(db(), [
        { listing, task: scripted({ output: "published again" }), ageMs: 6_000, status: "queued" },
        { listing, task: scripted({ output: "granted again" }) },
      ]);

      const rows = await ended(db(), [lostPublish as string, lostGrant as string]);
      expect(rows.map(({ status, output }) => ({ status, output }))).toEqual([
        { status: "completed", output: "published again" },
        { status: "completed", output: "granted again" },
      ]);
      await settled();
      expect([calls.get(lostPublish as string), calls.get(lostGrant as string)]).toEqual([1, 1]);
    });
  });
});

const findingsSchema = {
  type: "object",
  properties: {
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: { line: { type: "integer" }, note: { type: "string" } },
        required: ["line"],
      },
    },
  },
  required: ["findings"],
};
