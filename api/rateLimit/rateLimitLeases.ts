// The SQL side of leased rate limits: app.lease_rate_limit and app.return_rate_limit
// (lib/db/migrations/0005_rate_limit_leases.sql, 0010_rate_limit_busy_blocks.sql), one statement each.
import { sql } from "drizzle-orm";
import type { Database } from "../../lib/db/projections.ts";

/** Heard by every process when someone leases while others hold open blocks: give them back. */
export const RECALL_CHANNEL = "rate_limit_recall";
/** Heard by every process when units came back: whoever waits for some may lease again. */
export const RETURNED_CHANNEL = "rate_limit_returned";

/** A subject's window, as the notices of both channels name it. */
export const windowOfSubject = (windowStart: number, subject: string) =>
  `${windowStart} ${subject}`;

export type Lease = {
  /** Units this process may spend now. */
  leased: number;
  /** Units of the window handed out so far, these included. */
  granted: number;
  /** Units that may lie unused in processes' open blocks, this one's included. */
  outstanding: number;
};

export type LeaseRequest = {
  subject: string;
  windowStart: number;
  limit: number;
  /** Requests waiting in this process now: they spend their units at once. */
  needed: number;
  /** The block this process would like beyond them, granted only if it has been alone or is busy. */
  wanted: number;
  /** `granted` after this process's last lease in the window, or null before its first. */
  seen: number | null;
  /** The subject's requests overlap in this process (`overlappingRequests.ts`). */
  busy: boolean;
  /** The unspent part its last block added to `outstanding`: that block is spent now. */
  closing: number;
};

export async function leaseUnits(db: Database, request: LeaseRequest): Promise<Lease> {
  const { subject, windowStart, limit, needed, wanted, seen, busy, closing } = request;
  const [row] = (await db.execute(
    sql`select leased, granted, outstanding from app.lease_rate_limit(${subject}::text,
      ${windowStart}::bigint, ${limit}::integer, ${needed}::integer, ${wanted}::integer,
      ${seen}::integer, ${busy}::boolean, ${closing}::integer)`,
  )) as unknown as Lease[];
  if (!row) throw new Error("the rate-limit lease was not returned");
  return row;
}

/** Gives `unused` units back and closes the block that added `closing` to `outstanding`. */
export async function returnUnits(
  db: Database,
  {
    subject,
    windowStart,
    unused,
    closing,
  }: {
    subject: string;
    windowStart: number;
    unused: number;
    closing: number;
  },
) {
  await db.execute(
    sql`select app.return_rate_limit(${subject}::text, ${windowStart}::bigint,
      ${unused}::integer, ${closing}::integer)`,
  );
}
