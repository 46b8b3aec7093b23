import type { Context } from "hono";
import type { z } from "zod/v4";
import { ApiError } from "./errors.ts";

/** The schema's output for `input`, or `invalid_request` naming the first offending field. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join(".") || "body";
  throw new ApiError("invalid_request", `${field}: ${issue?.message ?? "invalid"}`);
}

export function parseQuery<T extends z.ZodType>(c: Context, schema: T): z.output<T> {
  return parseInput(schema, c.req.query());
}

/** Reads a JSON body of at most `maxBytes`; anything else is `invalid_request`. */
export async function parseJsonBody<T extends z.ZodType>(
  c: Context,
  schema: T,
  maxBytes = 16 * 1024,
): Promise<z.output<T>> {
  if (!c.req.header("content-type")?.toLowerCase().startsWith("application/json")) {
    throw new ApiError("invalid_request", "Content-Type must be application/json");
  }
  const text = await c.req.text();
  if (Buffer.byteLength(text) > maxBytes) {
    throw new ApiError("invalid_request", `The body exceeds ${maxBytes} bytes`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The body is not valid JSON");
  }
  return parseInput(schema, body);
}
