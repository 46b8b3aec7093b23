import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type AnsweredRun, finalResult } from "../../lib/runLedger/runView.ts";
import type { WholeOutput } from "../execution/watchRun.ts";
import { type ApiError, errorBody } from "../http/errors.ts";

/**
 * A refusal as MCP tells a tool's failure: a result with `isError`, its text the spec's code and
 * message (`credential_not_found: …`), and the error object in `_meta`.
 */
export function toolError(error: ApiError): CallToolResult {
  return {
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
    isError: true,
    _meta: errorBody(error),
  };
}

/** JSON as a tool's answer: the text as it is, and the object it parses to as structured content. */
export function jsonResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) };
}

/**
 * An answered run as a tool's result. Completed: an object output as structured content and as its
 * JSON text, any other output as text. Failed: `isError`, the reason and the partial output. `_meta`
 * has the run's id, status, cost (wei, as a decimal string) and duration.
 */
export function runToolResult(row: AnsweredRun, whole: WholeOutput | undefined): CallToolResult {
  const result = finalResult(row, whole);
  const _meta = {
    run_id: result.run_id,
    agent_id: result.agent_id,
    status: result.status,
    cost_wei: result.cost_wei.toString(),
    duration_ms: result.duration_ms,
    ...(result.output_truncated && {
      output_truncated: true,
      output_sha256: result.output_sha256,
    }),
  };
  const text = outputText(result.output);
  if (result.status === "failed") {
    const reason = { type: "text" as const, text: `The run failed: ${row.failure ?? "no reason"}` };
    return {
      content: text === "" ? [reason] : [reason, { type: "text", text }],
      isError: true,
      _meta,
    };
  }
  // A cut copy of a longer output is text, whatever the output's shape.
  const structured = !result.output_truncated && isObject(result.output);
  return {
    content: [{ type: "text", text }],
    ...(structured && { structuredContent: result.output as Record<string, unknown> }),
    _meta,
  };
}

function outputText(output: unknown): string {
  if (output === null || output === undefined) return "";
  return typeof output === "string" ? output : JSON.stringify(output);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
