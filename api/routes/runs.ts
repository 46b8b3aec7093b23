import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { runs } from "../../lib/db/appSchema.ts";
import { isRunId } from "../../lib/ids/randomIds.ts";
import { type AppEnv, callerWallet } from "../context.ts";
import { ApiError } from "../errors.ts";
import { exactJson } from "../exactJson.ts";
import { runResult } from "../execution/runResult.ts";

export const runRoutes = new Hono<AppEnv>();

/**
 * One of the caller's runs: its result once final, else how far it got; a failed run also says why
 * (`failure`, a short reason that never holds a secret).
 */
runRoutes.get("/:run_id", async (c) => {
  const runId = c.req.param("run_id");
  const notFound = new ApiError("run_not_found", "No run of yours has this id");
  if (!isRunId(runId)) throw notFound;
  const [row] = await c
    .get("deps")
    .db.select()
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.wallet, callerWallet(c).toLowerCase())));
  if (!row) throw notFound;
  const result = runResult(row);
  const failure = result.status === "failed" ? { failure: row.failure ?? "" } : {};
  return c.body(exactJson({ ...result, ...failure }), 200, { "Content-Type": "application/json" });
});
