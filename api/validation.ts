import type { Context } from "hono";
import type { z } from "zod/v4";
import { ApiError } from "./errors.ts";
import { MAX_SMALL_BODY_BYTES } from "./limits.ts";
import { readJsonObject } from "./readJsonObject.ts";

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

/** The request's JSON object body (see `readJsonObject`), parsed with `schema`. */
export async function parseJsonBody<T extends z.ZodType>(
  c: Context,
  schema: T,
  maxBytes = MAX_SMALL_BODY_BYTES,
): Promise<z.output<T>> {
  const { body } = await readJsonObject(c, { maxBytes });
  return parseInput(schema, body);
}
