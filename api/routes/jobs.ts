import { and, eq } from "drizzle-orm";
import { openVersionSecret } from "../../lib/agents/openAgentSecret.ts";
import { jobs } from "../../lib/db/appSchema.ts";
import { isJobId } from "../../lib/ids/randomIds.ts";
import { ApiError } from "../http/errors.ts";
import { AUTHENTICATED } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerWallet } from "../process/context.ts";

export const jobRoutes = new DescribedRoutes("/v1/jobs");

/**
 * A job, to the wallet that created it only: anyone else is told it does not exist. A connected
 * agent's registration, or new version, also carries its `webhook_secret`, opened from that
 * version's sealed private part on every read (it is never stored in the clear), so its creator can always fetch it again.
 */
jobRoutes.get(
  "/:job_id",
  {
    tag: "Agents",
    summary: "Get a registration or version job",
    security: "bearer",
    scope: "create",
    pathParameters: { job_id: "The job's id (`job_…`)" },
    answer: { status: 200, description: "The job", schema: answers.job },
    errors: ["job_not_found", ...AUTHENTICATED],
  },
  async (c, reply) => {
    if (!isJobId(c.req.param("job_id"))) {
      throw new ApiError("job_not_found", "No job with this id");
    }
    const { db, sealingKey } = c.get("deps");
    const [job] = await db
      .select({ id: jobs.id, status: jobs.status, result: jobs.result, error: jobs.error })
      .from(jobs)
      .where(and(eq(jobs.id, c.req.param("job_id")), eq(jobs.wallet, callerWallet(c))));
    if (!job) throw new ApiError("job_not_found", "No job with this id");
    if (job.status !== "completed" || !job.result) {
      return reply(c, {
        job_id: job.id,
        status: job.status,
        ...(job.status === "failed" && job.error && { error: job.error }),
      });
    }
    const { result } = job;
    const call = "create_listing" in result ? result.create_listing : result.update_listing;
    const secret = await openVersionSecret(
      db,
      sealingKey,
      call.on_chain_listing_id,
      call.metadata_uri,
    );
    return reply(c, {
      job_id: job.id,
      status: job.status,
      result: {
        ...result,
        ...(secret?.webhook_secret !== undefined && { webhook_secret: secret.webhook_secret }),
      },
    });
  },
);
