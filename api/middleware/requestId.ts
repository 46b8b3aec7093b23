import { randomFillSync } from "node:crypto";

const ID_BYTES = 12;
/** Random bytes for this many ids are drawn at once: one draw per request costs more than the id. */
const IDS_PER_DRAW = 256;
const pool = Buffer.alloc(ID_BYTES * IDS_PER_DRAW);
let next = pool.length;

/** A request's id, which its answer carries and every log line about it names, for support to look up. */
export function newRequestId(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  next += ID_BYTES;
  return `req_${pool.toString("hex", next - ID_BYTES, next)}`;
}
