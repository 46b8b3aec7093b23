import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { runs } from "../../lib/db/appSchema.ts";
import { isRunId } from "../../lib/ids/randomIds.ts";
import { runView } from "../../lib/runLedger/runView.ts";
import { type AppEnv, callerWallet } from "../context.ts";
import { ApiError } from "../errors.ts";
import { exactJson } from "../exactJson.ts";
import { apiRunStatus } from "../execution/runResult.ts";
import { startExecution } from "../execution/startExecution.ts";
import { setResponseHeader } from "../responseHeader.ts";
import { listRuns, runPageJson } from "../runs/listRuns.ts";
import { runListQuery } from "../runs/runListQuery.ts";
import { parseQuery } from "../validation.ts";

export const runRoutes = new Hono<AppEnv>();

const JSON_TYPE = { "Content-Type": "application/json" };

/**
 * Admits a task exactly as `POST /v1/execute` does (checks, charging rule, rate limits,
 * Idempotency-Key) and answers at once, the run going on; `Location` is where its result will be.
 */
runRoutes.post("/", async (c) => {
  const { runId, watch } = await startExecution(c);
  await watch.stop();
  const [row] = await c
    .get("deps")
    .db.select({ status: runs.status, charge: runs.charge })
    .from(runs)
    .where(eq(runs.id, runId));
  if (!row) throw new Error(`run ${runId} was admitted but cannot be read`);
  setResponseHeader(c, "Location", `/v1/runs/${runId}`);
  return c.body(exactJson({ run_id: runId, status: apiRunStatus(row) }), 202, JSON_TYPE);
});

/** The caller's runs, newest first, a page at a time; never their inputs or outputs. */
runRoutes.get("/", async (c) => {
  const query = parseQuery(c, runListQuery);
  const wallet = callerWallet(c).toLowerCase();
  const page = await listRuns(c.get("deps").db, eq(runs.wallet, wallet), query);
  return c.body(runPageJson(page), 200, JSON_TYPE);
});

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
  return c.body(exactJson(runView(row)), 200, JSON_TYPE);
});
