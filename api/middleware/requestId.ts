import { randomBytes } from "node:crypto";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context.ts";

/** Every response carries a request id, which support can look up and every log line names. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = `req_${randomBytes(12).toString("hex")}`;
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
});
