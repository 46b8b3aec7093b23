import type { Context } from "hono";
import { z } from "zod/v4";
import { MAX_SMALL_BODY_BYTES } from "../limits.ts";
import { ApiError } from "./errors.ts";
import { readJsonObject } from "./readJsonObject.ts";

/** The schema's output for `input`, or `invalid_request` naming the first offending field. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join(".") || "body";
  throw new ApiError("invalid_request", `${field}: ${issue?.message ?? "invalid"}`);
}

/** The query string parsed with `schema`; a parameter given twice is refused, never half-read. */
export function parseQuery<T extends z.ZodType>(c: Context, schema: T): z.output<T> {
  const repeated = Object.entries(c.req.queries()).find(([, values]) => values.length > 1);
  if (repeated) {
    throw new ApiError("invalid_request", `${repeated[0].slice(0, 64)}: must be given once`);
  }
  return parseInput(schema, c.req.query());
}

/** A query value of plain decimal digits from `min` to `max`: never "", "+1", "1e1" or "0x10". */
export function queryInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be a decimal integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** A query value like "4" or "4.5" from `min` to `max`: never "", " 4", "4e0" or "0x4". */
export function queryDecimal(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a decimal number")
    .transform(Number)
    .pipe(z.number().min(min).max(max));
}

/** `limit` and `offset` of every paged endpoint. */
export const pageSchema = {
  limit: queryInteger(1, 100).default(20),
  offset: queryInteger(0, 1_000_000).default(0),
};

/** The request's JSON object body (see `readJsonObject`), parsed with `schema`. */
export async function parseJsonBody<T extends z.ZodType>(
  c: Context,
  schema: T,
  maxBytes = MAX_SMALL_BODY_BYTES,
): Promise<z.output<T>> {
  const { body } = await readJsonObject(c, { maxBytes });
  return parseInput(schema, body);
}
