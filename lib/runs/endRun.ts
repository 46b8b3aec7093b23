import { sql } from "drizzle-orm";
import { runs } from "../db/appSchema.ts";

/**
 * The columns every end of a run sets, whoever ends it (its worker, the sweeper): the request is
 * dropped, the lease let go, and a per-task reservation moves on: to `debit_pending` when the run
 * completed, `released` when it failed. A run charged otherwise (`none`) keeps its charge.
 */
export function endedRunColumns(status: "completed" | "failed", failure: string | null) {
  const reservationTo = status === "completed" ? "debit_pending" : "released";
  return {
    status,
    failure,
    request: null,
    leaseUntil: null,
    finishedAt: sql`now()`,
    charge: sql`case when ${runs.charge} = 'reserved' then ${reservationTo} else ${runs.charge} end`,
  };
}
