import { randomFillSync } from "node:crypto";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context.ts";
import { setResponseHeader } from "../responseHeader.ts";

const ID_BYTES = 12;
/** Random bytes for this many ids are drawn at once: one draw per request costs more than the id. */
const IDS_PER_DRAW = 256;
const pool = Buffer.alloc(ID_BYTES * IDS_PER_DRAW);
let next = pool.length;

function randomId(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  next += ID_BYTES;
  return pool.toString("hex", next - ID_BYTES, next);
}

/** Every response carries a request id, which support can look up and every log line names. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = `req_${randomId()}`;
  c.set("requestId", id);
  setResponseHeader(c, "X-Request-Id", id);
  await next();
});
