import { sql } from "drizzle-orm";

/**
 * The next on-chain run id, as SQL: this database's random epoch in the high 64 bits, a sequence in
 * the low ones. Runs of one database share storage words of the contract's run bitmap, and a wiped
 * database starts a new epoch instead of reusing ids the contract has already logged.
 */
export const nextOnChainRunId = sql<string>`(
  (select epoch from app.run_id_epoch)::numeric * 18446744073709551616
  + nextval('app.run_sequence')
)`;
