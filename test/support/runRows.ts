// Finds the runs a test's requests admit, and waits for them to reach a state, by reading their rows.
import { eq } from "drizzle-orm";
import { runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";

type Deps = { db: Database };

export async function readRun({ db }: Deps, runId: string) {
  const [row] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!row) throw new Error(`no run ${runId}`);
  return row;
}

/** The run's row once `holds` is true of it (e.g. once admission has granted it a slot). */
export async function waitForRun(
  deps: Deps,
  runId: string,
  holds: (row: Awaited<ReturnType<typeof readRun>>) => boolean,
  timeoutMs = 10_000,
) {
  for (let attempt = 0; attempt < timeoutMs / 25; attempt++) {
    const row = await readRun(deps, runId);
    if (holds(row)) return row;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${runId} never reached the state waited for`);
}

/** The wallet's runs' ids, to tell the next one from them (`nextRunOf`). */
export async function runIdsOf({ db }: Deps, wallet: string): Promise<string[]> {
  const rows = await db
    .select({ id: runs.id })
    .from(runs)
    .where(eq(runs.wallet, wallet.toLowerCase()));
  return rows.map(({ id }) => id);
}

/** The wallet's run that is not one of `known`, once an admission in flight has inserted it. */
export async function nextRunOf(deps: Deps, wallet: string, known: string[]) {
  for (let attempt = 0; attempt < 400; attempt++) {
    const id = (await runIdsOf(deps, wallet)).find((runId) => !known.includes(runId));
    if (id) return readRun(deps, id);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no new run of ${wallet} appeared`);
}
