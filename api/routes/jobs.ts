import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { openAgentSecret } from "../../lib/agents/openAgentSecret.ts";
import { jobs } from "../../lib/db/appSchema.ts";
import { isJobId } from "../../lib/ids/randomIds.ts";
import { type AppEnv, callerWallet } from "../context.ts";
import { ApiError } from "../errors.ts";

export const jobRoutes = new Hono<AppEnv>();

type RegistrationResult = { create_listing?: { on_chain_listing_id?: string } };

/**
 * A job, to the wallet that created it only: anyone else is told it does not exist. A connected
 * agent's registration also carries its `webhook_secret`, opened from the agent's sealed private
 * part on every read (it is never stored in the clear), so its creator can always fetch it again.
 */
jobRoutes.get("/:job_id", async (c) => {
  if (!isJobId(c.req.param("job_id"))) {
    throw new ApiError("job_not_found", "No job with this id");
  }
  const { db, sealingKey } = c.get("deps");
  const [job] = await db
    .select({ id: jobs.id, status: jobs.status, result: jobs.result, error: jobs.error })
    .from(jobs)
    .where(and(eq(jobs.id, c.req.param("job_id")), eq(jobs.wallet, callerWallet(c))));
  if (!job) throw new ApiError("job_not_found", "No job with this id");
  if (job.status !== "completed") {
    return c.json({
      job_id: job.id,
      status: job.status,
      ...(job.status === "failed" ? { error: job.error } : {}),
    });
  }
  const result = job.result as RegistrationResult;
  const listing = result.create_listing?.on_chain_listing_id;
  const secret = listing ? await openAgentSecret(db, sealingKey, listing) : undefined;
  return c.json({
    job_id: job.id,
    status: job.status,
    result: {
      ...result,
      ...(secret?.webhook_secret !== undefined && { webhook_secret: secret.webhook_secret }),
    },
  });
});
