import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { jobs } from "../../lib/db/appSchema.ts";
import { isJobId } from "../../lib/ids/randomIds.ts";
import { type AppEnv, callerWallet } from "../context.ts";
import { ApiError } from "../errors.ts";

export const jobRoutes = new Hono<AppEnv>();

/** A job, to the wallet that created it only: anyone else is told it does not exist. */
jobRoutes.get("/:job_id", async (c) => {
  if (!isJobId(c.req.param("job_id"))) {
    throw new ApiError("job_not_found", "No job with this id");
  }
  const [job] = await c
    .get("deps")
    .db.select({ id: jobs.id, status: jobs.status, result: jobs.result, error: jobs.error })
    .from(jobs)
    .where(and(eq(jobs.id, c.req.param("job_id")), eq(jobs.wallet, callerWallet(c))));
  if (!job) throw new ApiError("job_not_found", "No job with this id");
  return c.json({
    job_id: job.id,
    status: job.status,
    ...(job.status === "completed" ? { result: job.result } : {}),
    ...(job.status === "failed" ? { error: job.error } : {}),
  });
});
