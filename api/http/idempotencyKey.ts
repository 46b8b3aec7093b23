import type { Context } from "hono";
import { ApiError } from "./errors.ts";

/** The request's `Idempotency-Key`: 1 to 255 visible ASCII characters, or undefined when absent. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const key = c.req.header("idempotency-key");
  if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new ApiError(
      "invalid_request",
      "Idempotency-Key must be 1 to 255 visible ASCII characters",
    );
  }
  return key;
}
