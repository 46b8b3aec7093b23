// A run as A2A (protocol 0.3) shows it: a task whose id is the run id, in a context of its own,
// with the agent's output as its one artifact.
import type { RunAnswer } from "../../lib/runLedger/notices.ts";
import { costOf, finalResult, isAnswered } from "../../lib/runLedger/runView.ts";
import type { WholeOutput } from "../execution/watchRun.ts";

export const OUTPUT_ARTIFACT_ID = "output";

type TaskState = "submitted" | "working" | "completed" | "failed";
type Part = { kind: "text"; text: string } | { kind: "data"; data: Record<string, unknown> };

function taskState(row: RunAnswer): TaskState {
  if (isAnswered(row)) return row.status === "completed" ? "completed" : "failed";
  return row.status === "waiting" || row.status === "queued" ? "submitted" : "working";
}

/** An object output as a data part; any other output as text (JSON unless it is a string). */
export function outputParts(output: unknown): Part[] {
  if (output === null || output === undefined) return [];
  if (typeof output === "string") return [{ kind: "text", text: output }];
  if (typeof output === "object" && !Array.isArray(output)) {
    return [{ kind: "data", data: output as Record<string, unknown> }];
  }
  return [{ kind: "text", text: JSON.stringify(output) }];
}

/** What a client reads of the charge: the run's id, price charged (wei, a string) and duration. */
export function runMetadata(row: RunAnswer) {
  return {
    run_id: row.id,
    cost_wei: costOf(row).toString(),
    ...(isAnswered(row) && { duration_ms: row.durationMs ?? 0 }),
  };
}

/** The status of the task `row` is, with a failed run's reason as the agent's message. */
export function taskStatus(row: RunAnswer) {
  const state = taskState(row);
  return {
    state,
    timestamp: new Date().toISOString(),
    ...(state === "failed" && {
      message: {
        kind: "message",
        role: "agent",
        messageId: `${row.id}-status`,
        taskId: row.id,
        contextId: row.id,
        parts: [{ kind: "text", text: row.failure || "The run failed" }],
      },
    }),
  };
}

/** The whole task: its status and, once answered, the output delivered (a failed run's partial one). */
export function taskOf(row: RunAnswer, whole?: WholeOutput) {
  const parts = isAnswered(row) ? outputParts(finalResult(row, whole).output) : [];
  return {
    kind: "task",
    id: row.id,
    contextId: row.id,
    status: taskStatus(row),
    ...(parts.length > 0 && {
      artifacts: [{ artifactId: OUTPUT_ARTIFACT_ID, name: "output", parts }],
    }),
    metadata: runMetadata(row),
  };
}
