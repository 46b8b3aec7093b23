import type { Context } from "hono";
import { describeBytes } from "../limits.ts";
import { ApiError } from "./errors.ts";

/**
 * The request's JSON object body, read once: `application/json`, at most `maxBytes` (413
 * `payload_too_large` beyond), valid JSON, an object. `what` names the body in messages. Returns
 * the raw text too, for callers that keep it.
 */
export async function readJsonObject(
  c: Context,
  { maxBytes, what = "body" }: { maxBytes: number; what?: string },
): Promise<{ body: Record<string, unknown>; text: string }> {
  if (!c.req.header("content-type")?.toLowerCase().startsWith("application/json")) {
    throw new ApiError("invalid_request", "Content-Type must be application/json");
  }
  const text = await c.req.text();
  const size = Buffer.byteLength(text);
  if (size > maxBytes) {
    throw new ApiError(
      "payload_too_large",
      `The ${what} is ${size} bytes; the limit is ${describeBytes(maxBytes)}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the input, which may hold a secret.
    throw new ApiError("invalid_request", `The ${what} is not valid JSON`);
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new ApiError("invalid_request", `The ${what} must be a JSON object`);
  }
  return { body: body as Record<string, unknown>, text };
}
