import type { Context } from "hono";
import { z } from "zod/v4";

/** JSON-RPC messages one POST may carry: a batch (MCP 2025-03-26) is bounded, as one request's work. */
export const MAX_BATCH_MESSAGES = 10;

const jsonRpcMessage = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.int()]).optional().describe("Absent in a notification"),
    method: z.string().describe("`initialize`, `tools/list`, `tools/call`, `ping`, …"),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "JsonRpcMessage" });

/** What a POST to /mcp carries, as the OpenAPI document describes it; the MCP transport checks it. */
export const mcpPayload = z.union([
  jsonRpcMessage,
  z.array(jsonRpcMessage).min(1).max(MAX_BATCH_MESSAGES),
]);

/** A JSON-RPC error answer with no id, for a body that is no request. */
export function rpcErrorResponse(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/**
 * The POST's JSON-RPC payload, parsed, or the JSON-RPC error answering it: not JSON, or a batch
 * that is empty or too large. The app's body limit has bounded its size; the MCP transport checks
 * the messages' shapes.
 */
export async function readMessages(
  c: Context,
): Promise<{ payload: unknown } | { refusal: Response }> {
  let payload: unknown;
  try {
    payload = JSON.parse(await c.req.text());
  } catch {
    // Not the parser's message: it quotes the input.
    return { refusal: rpcErrorResponse(400, -32700, "Parse error: Invalid JSON") };
  }
  if (Array.isArray(payload) && (payload.length === 0 || payload.length > MAX_BATCH_MESSAGES)) {
    const message = `Invalid Request: a batch holds 1 to ${MAX_BATCH_MESSAGES} messages`;
    return { refusal: rpcErrorResponse(400, -32600, message) };
  }
  return { payload };
}

/** Whether a request of `payload` asks for progress, which only a stream of events can carry. */
export function asksForProgress(payload: unknown): boolean {
  return messagesOf(payload).some((message) => {
    const params = (message as { params?: { _meta?: { progressToken?: unknown } } }).params;
    return params?._meta?.progressToken !== undefined;
  });
}

/** Whether `payload` opens an MCP session (`initialize`). */
export function initializes(payload: unknown): boolean {
  return messagesOf(payload).some(
    (message) => (message as { method?: unknown }).method === "initialize",
  );
}

function messagesOf(payload: unknown): unknown[] {
  const messages = Array.isArray(payload) ? payload : [payload];
  return messages.filter((message) => typeof message === "object" && message !== null);
}
