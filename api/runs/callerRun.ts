import { and, eq } from "drizzle-orm";
import type { Address } from "viem";
import { type RunRow, runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { isRunId } from "../../lib/ids/randomIds.ts";

/** One of `wallet`'s runs, however it was started; undefined for an id that is no run of theirs. */
export async function callerRun(
  db: Database,
  wallet: Address,
  runId: string,
): Promise<RunRow | undefined> {
  if (!isRunId(runId)) return undefined;
  const [row] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.wallet, wallet.toLowerCase())));
  return row;
}
