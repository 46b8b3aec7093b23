import type { RunContext } from "./runtime.ts";

/**
 * The signal a runtime runs under: the worker's, which ends the run at its deadline, and the
 * deadline alone, which ends it too.
 */
export function untilDeadline(run: Pick<RunContext, "signal" | "deadline">): AbortSignal {
  return AbortSignal.any([run.signal, AbortSignal.timeout(Math.max(0, run.deadline - Date.now()))]);
}
