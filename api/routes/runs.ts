import { eq } from "drizzle-orm";
import { runs } from "../../lib/db/appSchema.ts";
import { receiptDocument } from "../../lib/receipts/receiptDocument.ts";
import { hasReceipt } from "../../lib/receipts/runReceipt.ts";
import { apiRunStatus, runView } from "../../lib/runLedger/runView.ts";
import { executeBody } from "../execution/executeRequest.ts";
import { startExecution } from "../execution/startExecution.ts";
import { ApiError } from "../http/errors.ts";
import { setResponseHeader } from "../http/responseHeader.ts";
import { parseQuery } from "../http/validation.ts";
import { AUTHENTICATED, CHARGING_RULE, EXECUTION_ERRORS } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerWallet } from "../process/context.ts";
import { anchorOf } from "../runs/anchorOf.ts";
import { callerRun } from "../runs/callerRun.ts";
import { listRuns, runPageJson } from "../runs/listRuns.ts";
import { runListQuery } from "../runs/runListQuery.ts";

export const runRoutes = new DescribedRoutes("/v1/runs");

/**
 * Admits a task exactly as `POST /v1/execute` does (checks, charging rule, rate limits,
 * Idempotency-Key) and answers at once, the run going on; `Location` is where its result will be.
 */
runRoutes.post(
  "/",
  {
    tag: "Execution",
    summary: "Start a task without waiting for it",
    description:
      "Takes the body of `POST /v1/execute` and admits the run under the same rules (credential " +
      "checked on-chain, rate limits, `Idempotency-Key`), then answers at once; `GET " +
      "/v1/runs/{run_id}` (the `Location`) gives its result once it is final. " +
      CHARGING_RULE,
    security: "bearer",
    scope: "run",
    body: executeBody,
    idempotent: true,
    answer: {
      status: 202,
      description: "The run, admitted",
      schema: answers.runAccepted,
      headers: { Location: "The run's address: `/v1/runs/{run_id}`" },
    },
    errors: EXECUTION_ERRORS,
  },
  async (c, reply) => {
    const { runId, watch } = await startExecution(c);
    await watch.stop();
    const row = await callerRun(c.get("deps").db, callerWallet(c), runId);
    if (!row) throw new Error(`run ${runId} was admitted but cannot be read`);
    setResponseHeader(c, "Location", `/v1/runs/${runId}`);
    return reply.exact(c, { run_id: runId, status: apiRunStatus(row) });
  },
);

/** The caller's runs, newest first, a page at a time; never their inputs or outputs. */
runRoutes.get(
  "/",
  {
    tag: "Execution",
    summary: "List the caller's runs",
    description:
      "Newest first, without inputs or outputs. Pages by cursor: runs started while paging " +
      "neither repeat nor skip a run of the pages after.",
    security: "bearer",
    scope: "read",
    query: runListQuery,
    answer: { status: 200, description: "A page of runs", schema: answers.runList },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const query = parseQuery(c, runListQuery);
    const wallet = callerWallet(c).toLowerCase();
    const page = await listRuns(c.get("deps").db, eq(runs.wallet, wallet), query);
    return reply.written(c, runPageJson(page));
  },
);

/**
 * One of the caller's runs: its result once final, else how far it got; a failed run also says why
 * (`failure`, a short reason that never holds a secret).
 */
runRoutes.get(
  "/:run_id",
  {
    tag: "Execution",
    summary: "Get one of the caller's runs",
    security: "bearer",
    scope: "read",
    pathParameters: { run_id: "The run's id (`run_…`)" },
    answer: { status: 200, description: "The run", schema: answers.run },
    errors: ["run_not_found", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const row = await callerRun(c.get("deps").db, callerWallet(c), c.req.param("run_id"));
    if (!row) throw new ApiError("run_not_found", "No run of yours has this id");
    return reply.exact(c, runView(row));
  },
);

/**
 * A finished run's signed receipt (docs/receipts.md), with its Merkle proof, transaction and block
 * once its batch is anchored on-chain: what anyone can check against the chain with `verifyReceipt`.
 */
runRoutes.get(
  "/:run_id/receipt",
  {
    tag: "Execution",
    summary: "Get one of the caller's runs' signed receipt",
    description:
      "The receipt, its EIP-712 signature by the receipts key the contract names, and, once the " +
      "run's batch is anchored on-chain, the Merkle proof of its leaf, the anchoring transaction " +
      "and its block. 409 `receipt_pending` while the run is not over or its cost not final.",
    security: "bearer",
    scope: "read",
    pathParameters: { run_id: "The run's id (`run_…`)" },
    answer: { status: 200, description: "The receipt", schema: answers.runReceipt },
    errors: ["run_not_found", "receipt_pending", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const deps = c.get("deps");
    const row = await callerRun(deps.db, callerWallet(c), c.req.param("run_id"));
    if (!row) throw new ApiError("run_not_found", "No run of yours has this id");
    if (!hasReceipt(row)) {
      throw new ApiError("receipt_pending", "The run's receipt comes once its cost is final");
    }
    const anchor = row.anchorRoot ? await anchorOf(deps.db, row.anchorRoot) : undefined;
    return reply(c, await receiptDocument(row, anchor, deps.chain));
  },
);
