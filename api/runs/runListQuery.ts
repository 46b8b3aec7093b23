import { z } from "zod/v4";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import { isRunId } from "../../lib/ids/randomIds.ts";
import { queryInteger } from "../http/validation.ts";

export const RUN_STATUSES = ["waiting", "queued", "running", "completed", "failed"] as const;

/**
 * Where a page of runs ends: the last run's `created_at` in microseconds since the epoch (the
 * database's own precision, which a JavaScript date would round) and its id, the order's tiebreak.
 */
export type RunCursor = { createdAtMicros: bigint; id: string };

/** 16 digits of microseconds reach the year 2286, within what Postgres adds to a time. */
const CURSOR_TEXT = /^(\d{1,16})\.(run_[0-9a-f]{24})$/;

export function encodeRunCursor({ createdAtMicros, id }: RunCursor): string {
  return Buffer.from(`${createdAtMicros}.${id}`).toString("base64url");
}

function decodeRunCursor(cursor: string): RunCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  if (!match?.[1] || !match[2] || !isRunId(match[2])) return undefined;
  return { createdAtMicros: BigInt(match[1]), id: match[2] };
}

/** An ISO 8601 time with its offset (`Z` or `±hh:mm`), or a date (its UTC midnight). */
const isoTime = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((text) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text))
  .refine((date) => !Number.isNaN(date.getTime()), "must be an ISO 8601 time");

/** The query of `GET /v1/runs` and `GET /v1/creators/me/runs`. */
export const runListQuery = z
  .object({
    agent_id: z
      .string()
      .transform((id, context) => {
        const onChain = parseApiListingId(id);
        if (!onChain) context.addIssue({ code: "custom", message: "must be lst_<64 hex>" });
        return onChain ?? "0x";
      })
      .optional()
      .describe("Only the runs of this listing"),
    status: z.enum(RUN_STATUSES).optional().describe("Only runs in this status"),
    since: isoTime.optional().describe("Only runs created at or after this time (ISO 8601)"),
    until: isoTime.optional().describe("Only runs created before this time (ISO 8601)"),
    limit: queryInteger(1, 100).default(20).describe("Runs per page, 1 to 100"),
    cursor: z
      .string()
      .transform((text, context) => {
        const cursor = decodeRunCursor(text);
        if (!cursor) context.addIssue({ code: "custom", message: "not a cursor this API gave" });
        return cursor ?? { createdAtMicros: 0n, id: "" };
      })
      .optional()
      .describe("The `next_cursor` of the page before"),
  })
  .refine((query) => !query.since || !query.until || query.since <= query.until, {
    path: ["since"],
    message: "must not be after until",
  });

export type RunListQuery = z.output<typeof runListQuery>;
