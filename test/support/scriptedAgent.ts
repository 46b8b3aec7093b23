// An agent for run tests whose behaviour is its task: a small real runtime that streams, sleeps,
// answers, fails, throws or hangs as the task's script says.
import type { RunContext, RunOutcome, Runtime } from "../../workers/execution/runtime.ts";

/** What a scripted agent does with a run, in this order: deltas, sleep, then one way to end. */
export type AgentScript = {
  /** Streamed one at a time, `deltaGapMs` apart. */
  deltas?: string[];
  deltaGapMs?: number;
  /** Then waits this long, or until the run's signal aborts (which fails the run). */
  sleepMs?: number;
  /** Completes with this output (by default the deltas joined). */
  output?: unknown;
  /** Fails with this reason instead. */
  fail?: string;
  /** Throws this message instead. */
  throws?: string;
  /** Never answers, whatever the signal says. */
  hang?: boolean;
};

/** A run's task that has the scripted agent follow `script`. */
export const scripted = (script: AgentScript): string => JSON.stringify(script);

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** The scripted agent's runtime; `onCall` hears every call, before anything else happens. */
export function scriptedRuntime(onCall: (run: RunContext) => void = () => {}): Runtime {
  return async (run): Promise<RunOutcome> => {
    onCall(run);
    const script = JSON.parse(run.task) as AgentScript;
    const streamed: string[] = [];
    for (const delta of script.deltas ?? []) {
      if (run.signal.aborted) break;
      run.onDelta(delta);
      streamed.push(delta);
      await sleep(script.deltaGapMs ?? 0, run.signal);
    }
    if (script.hang) return new Promise<never>(() => {});
    await sleep(script.sleepMs ?? 0, run.signal);
    if (run.signal.aborted) {
      return { status: "failed", output: streamed.join(""), failure: "aborted" };
    }
    if (script.throws) throw new Error(script.throws);
    if (script.fail) return { status: "failed", output: streamed.join(""), failure: script.fail };
    return { status: "completed", output: script.output ?? streamed.join("") };
  };
}
