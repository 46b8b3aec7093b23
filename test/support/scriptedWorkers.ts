// Worker processes with scripted agents on a test's stack, and what their logs say about runs.
import { fileURLToPath } from "node:url";
import type { Stack } from "../../devStack/startStack.ts";
import type { Worker } from "../../devStack/startWorker.ts";
import type { LogEntry } from "./processOutput.ts";

const SCRIPTED_WORKER = fileURLToPath(new URL("./scriptedWorker.ts", import.meta.url));

/** One more worker process whose agents follow their tasks (test/support/scriptedWorker.ts). */
export function addScriptedWorker(stack: Stack): Promise<Worker> {
  return stack.addWorker({}, SCRIPTED_WORKER);
}

/** How many times an agent was called for each run, across every worker process so far. */
export function agentCalls(entries: LogEntry[]): Map<string, number> {
  const calls = new Map<string, number>();
  for (const entry of entries) {
    if (entry.message !== "agent called") continue;
    const runId = entry.run_id as string;
    calls.set(runId, (calls.get(runId) ?? 0) + 1);
  }
  return calls;
}

/** The processes (pids) whose agents were called. */
export function callingProcesses(entries: LogEntry[]): Set<number> {
  return new Set(
    entries.filter((entry) => entry.message === "agent called").map((entry) => entry.pid as number),
  );
}
