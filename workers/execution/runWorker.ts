import { SpanKind, trace } from "@opentelemetry/api";
import type { Bus, BusMessage, Subscription } from "../../lib/bus/bus.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { announceDelta } from "../../lib/runLedger/announce.ts";
import { type FinishedRun, finishRun, type RunStorage } from "../../lib/runLedger/finishRun.ts";
import { grantSlots } from "../../lib/runLedger/grantSlots.ts";
import { RUN_SUBJECT } from "../../lib/runLedger/publishRun.ts";
import { RUN_INTERNAL_ERROR } from "../../lib/runLedger/runFailures.ts";
import { type TakenRun, takeRun } from "../../lib/runLedger/takeRun.ts";
import { contextFrom, inSpan } from "../../lib/tracing/spans.ts";
import type { OutputCheck } from "./checkOutput.ts";
import { MAX_PARTIAL_OUTPUT_CHARS, type RuntimeFor, runAgent } from "./runAgent.ts";
import { keepRunLeases } from "./runLeases.ts";
import type { RunOutcome } from "./runtime.ts";

/** The CID of an `ipfs://` metadata URI; any other URI as it is. */
const manifestCid = (metadataUri: string | undefined) =>
  metadataUri?.replace(/^ipfs:\/\//, "") ?? "";

/** The consumer group every run worker shares: each command goes to one of them. */
export const RUN_GROUP = "run-workers";
/** Deliveries of one command; a run left `queued` after them is republished by the sweeper. */
const MAX_DELIVER = 20;
const CHECK_ATTEMPTS = 3;

export type RunWorkerOptions = {
  db: Database;
  bus: Bus;
  log: Logger;
  runtimeFor: RuntimeFor;
  checkOutput: OutputCheck;
  /** What a run's row keeps of its output. */
  storage: RunStorage;
  /** Runs at once in this process. */
  concurrency: number;
  /** How long this worker's word that it runs a run holds (`lease_until`); renewed every third. */
  leaseMs: number;
  /** On stop, how long runs in hand may go on before they are interrupted. */
  drainMs?: number;
};

/**
 * Consumes `runs.execute` (data: the run id): takes the run `queued → running` (a run not `queued`
 * is someone else's or over: nothing happens), runs its agent under a lease, checks the output and
 * writes the outcome with its charge moved on, then frees the slot and tells whoever waits.
 */
export async function startRunWorker({
  db,
  bus,
  log,
  runtimeFor,
  checkOutput,
  storage,
  concurrency,
  leaseMs,
  drainMs = 10_000,
}: RunWorkerOptions): Promise<Subscription> {
  const leases = keepRunLeases({ db, leaseMs, log });
  const inHand = new Set<Promise<void>>();
  const stopping = new AbortController();

  async function execute(taken: TakenRun, message: BusMessage) {
    const runId = taken.id;
    const lost = new AbortController();
    leases.hold(runId, { message, onLost: () => lost.abort() });
    const started = performance.now();
    /** Characters of output announced so far, and the first of them (what a failed run keeps). */
    let streamed = 0;
    let partial = "";
    let finished: FinishedRun | undefined;
    try {
      let outcome: RunOutcome = taken.request
        ? await runAgent({
            runId,
            onChainListingId: taken.onChainListingId,
            agent: taken.agent,
            request: taken.request,
            runtimeFor,
            onDelta: (delta) => {
              announceDelta(bus, runId, delta, streamed);
              streamed += delta.length;
              partial += delta.slice(0, MAX_PARTIAL_OUTPUT_CHARS - partial.length);
            },
            interrupt: AbortSignal.any([stopping.signal, lost.signal]),
            log,
          })
        : { status: "failed", output: "", failure: RUN_INTERNAL_ERROR };
      const { ranBy, usage } = outcome;
      if (outcome.status === "completed") {
        const refused = await checkWithRetries(runId, taken, outcome.output);
        if (refused) outcome = { status: "failed", output: "", failure: refused };
      }
      finished = await finishRun({ db, bus, log, storage }, runId, {
        outcome,
        durationMs: performance.now() - started,
        streamed: partial,
        ranBy: {
          manifest_cid: manifestCid(taken.agent?.metadataUri),
          ...ranBy,
          ...(usage && { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens }),
        },
      });
      trace.getActiveSpan()?.setAttribute("marketplace.run_status", outcome.status);
      log.info("run ended", {
        run_id: runId,
        status: finished ? outcome.status : "ended elsewhere",
        ...(outcome.status === "failed" ? { failure: outcome.failure } : {}),
      });
    } finally {
      leases.release(runId);
    }
    // Finishing granted the freed slot; a run ended elsewhere frees its slot here.
    if (finished) return;
    await grantSlots({ db, bus }, taken.onChainListingId).catch((error: unknown) => {
      // The sweeper grants what this misses.
      log.warn("could not grant slots", { run_id: runId, error: String(error) });
    });
  }

  /** `checkOutput`, again when the check itself fails; a failure that persists fails the run. */
  async function checkWithRetries(runId: string, taken: TakenRun, output: unknown) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await checkOutput(taken.agent, output);
      } catch (error) {
        if (attempt >= CHECK_ATTEMPTS) {
          log.error("could not check a run's output", { run_id: runId, error: String(error) });
          return RUN_INTERNAL_ERROR;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
      }
    }
  }

  /** Takes the run a message names and runs it; the message is settled once the run is over. */
  async function handle(message: BusMessage) {
    const runId = new TextDecoder().decode(message.data);
    let taken: TakenRun | undefined;
    try {
      taken = await takeRun({ db, bus }, runId, leaseMs);
    } catch (error) {
      log.warn("could not take a run", { run_id: runId, error: String(error) });
      await message.retry(Math.min(500 * 2 ** message.deliveryCount, 10_000)).catch(() => {});
      return;
    }
    if (taken) {
      const running = execute(taken, message);
      inHand.add(running);
      await running.finally(() => inHand.delete(running));
    }
    // Settled once the run is over, or at once for one taken elsewhere or already ended; a lost
    // acknowledgement only brings the command back to find the run no longer `queued`.
    await message.ack().catch(() => {});
  }

  const subscription = await bus.consume(
    RUN_SUBJECT,
    { group: RUN_GROUP, ackWaitMs: leaseMs, maxDeliver: MAX_DELIVER, concurrency },
    // In the trace the message's headers carry: the one the run's admission began.
    (message) =>
      inSpan(
        `${RUN_SUBJECT} process`,
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            "messaging.system": "nats",
            "messaging.destination.name": RUN_SUBJECT,
            "messaging.message.delivery_count": message.deliveryCount,
            "marketplace.run_id": new TextDecoder().decode(message.data),
          },
        },
        () => handle(message),
        contextFrom(message.headers),
      ),
  );

  return {
    stop: async () => {
      const interrupt = setTimeout(() => stopping.abort(), drainMs);
      await subscription.stop();
      await Promise.allSettled(inHand);
      clearTimeout(interrupt);
      await leases.stop();
    },
  };
}
