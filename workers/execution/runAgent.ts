import type { SealedAgent } from "../../lib/agents/openAgentSecret.ts";
import type { RunRequest } from "../../lib/db/appSchema.ts";
import type { Logger } from "../../lib/log.ts";
import {
  RUN_INTERNAL_ERROR,
  RUN_INTERRUPTED,
  runTimedOut,
} from "../../lib/runLedger/runFailures.ts";
import type { RunOutcome, Runtime } from "./runtime.ts";

/**
 * The runtime that runs an agent version (opening its sealed private part as it needs); undefined:
 * no agent was registered under the run's listing.
 */
export type RuntimeFor = (agent: SealedAgent | undefined) => Runtime | Promise<Runtime>;

/** What a failed run keeps of the deltas it streamed: enough to show, bounded in memory. */
export const MAX_PARTIAL_OUTPUT_CHARS = 1 << 20;
const MAX_FAILURE_CHARS = 500;

export type AgentRun = {
  runId: string;
  onChainListingId: string;
  agent: SealedAgent | undefined;
  request: RunRequest;
  runtimeFor: RuntimeFor;
  /** Each delta as the agent produces it, until the run has ended. */
  onDelta: (delta: string) => void;
  /** Aborted when the run must stop before its agent answers: shutdown, or a lease lost. */
  interrupt: AbortSignal;
  log: Logger;
};

/**
 * Runs the agent to its outcome, whatever the runtime does: past the request's `timeoutSeconds` the
 * run has failed (its signal aborted, a late answer ignored); a runtime that throws is a failed run
 * with no detail for the renter (never a retry: the agent may have had side effects). A failed run
 * keeps the deltas streamed so far as its output.
 */
export function runAgent({
  runId,
  onChainListingId,
  agent,
  request,
  runtimeFor,
  onDelta,
  interrupt,
  log,
}: AgentRun): Promise<RunOutcome> {
  const controller = new AbortController();
  const deadline = Date.now() + request.timeoutSeconds * 1000;
  let partial = "";
  let ended = false;
  let ranBy: Runtime["ranBy"];
  const failed = (failure: string): RunOutcome => ({ status: "failed", output: partial, failure });

  return new Promise<RunOutcome>((resolve) => {
    const end = (outcome: RunOutcome, stopAgent: boolean) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      interrupt.removeEventListener("abort", onInterrupt);
      if (stopAgent) controller.abort();
      resolve(ranBy ? { ...outcome, ranBy } : outcome);
    };
    const onInterrupt = () => end(failed(RUN_INTERRUPTED), true);
    // A timer may fire a fraction of a millisecond early: the run is given all of its time.
    const timedOutAt = performance.now() + request.timeoutSeconds * 1000;
    const onTimeout = () => {
      const left = timedOutAt - performance.now();
      if (left > 0) timer = setTimeout(onTimeout, Math.ceil(left));
      else end(failed(runTimedOut(request.timeoutSeconds)), true);
    };
    let timer = setTimeout(onTimeout, deadline - Date.now());
    interrupt.addEventListener("abort", onInterrupt);
    if (interrupt.aborted) onInterrupt();

    const run = async () => {
      const runtime = await runtimeFor(agent);
      ranBy = runtime.ranBy;
      return runtime({
        runId,
        listingId: onChainListingId,
        task: request.task,
        input: request.input,
        inputUri: request.inputUri,
        deadline,
        signal: controller.signal,
        onDelta: (delta) => {
          if (ended || typeof delta !== "string") return;
          if (partial.length < MAX_PARTIAL_OUTPUT_CHARS) {
            partial += delta.slice(0, MAX_PARTIAL_OUTPUT_CHARS - partial.length);
          }
          onDelta(delta);
        },
      });
    };
    run().then(
      (outcome) => {
        // An outcome that beat this timer to the deadline (a runtime that stopped itself there, or
        // one busy past it) comes too late: the run timed out.
        if (Date.now() >= deadline) {
          return end(failed(runTimedOut(request.timeoutSeconds)), false);
        }
        end(acceptedOutcome(outcome) ?? failed(RUN_INTERNAL_ERROR), false);
      },
      (error: unknown) => {
        if (!ended) {
          log.error("the runtime failed", {
            run_id: runId,
            error: error instanceof Error ? error.message : String(error),
          });
        }
        end(failed(RUN_INTERNAL_ERROR), false);
      },
    );
  });
}

/** The runtime's outcome as the run keeps it; undefined for one that breaks the `Runtime` contract. */
function acceptedOutcome(outcome: RunOutcome | undefined): RunOutcome | undefined {
  const usage = outcome?.usage && { usage: outcome.usage };
  if (outcome?.status === "completed") {
    return { status: "completed", output: outcome.output, ...usage };
  }
  if (outcome?.status !== "failed" || typeof outcome.failure !== "string") return undefined;
  return {
    status: "failed",
    output: typeof outcome.output === "string" ? outcome.output : "",
    failure: outcome.failure.slice(0, MAX_FAILURE_CHARS),
    ...usage,
  };
}
