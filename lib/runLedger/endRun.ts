import { sql } from "drizzle-orm";
import { runs } from "../db/appSchema.ts";
import { chargeMove } from "./transitions.ts";

const CHARGED = chargeMove("reserved", "debit_pending");
const RELEASED = chargeMove("reserved", "released");

/**
 * The columns every end of a run sets, whoever ends it (its worker, the sweeper, the API refusing
 * it): the request is dropped, the lease let go, and a per-task reservation moves on by the charging
 * rule: to `debit_pending` when output reached the renter (`delivered`), `released` when none did.
 * A run charged otherwise (`none`) keeps its charge.
 */
export function endedRunColumns(
  status: "completed" | "failed",
  failure: string | null,
  delivered: boolean,
) {
  const reservation = delivered ? CHARGED : RELEASED;
  return {
    status,
    failure,
    request: null,
    leaseUntil: null,
    finishedAt: sql`now()`,
    charge: sql`case when ${runs.charge} = ${reservation.from} then ${reservation.to} else ${runs.charge} end`,
  };
}
