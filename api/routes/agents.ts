import { eq } from "drizzle-orm";
import { agents } from "../../lib/db/appSchema.ts";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import {
  type RegistrationQuota,
  UNLISTED_AGENT_EXPIRY_DAYS,
} from "../../lib/jobs/registrationQuota.ts";
import { type Submission, submitRegistration } from "../../lib/jobs/submitRegistration.ts";
import { ApiError } from "../http/errors.ts";
import { idempotencyKeyOf } from "../http/idempotencyKey.ts";
import { readJsonObject } from "../http/readJsonObject.ts";
import { MAX_BODY_BYTES } from "../limits.ts";
import { AUTHENTICATED } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import { manifest } from "../openapi/manifestSchema.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerWallet } from "../process/context.ts";

export const agentRoutes = new DescribedRoutes("/v1/agents");

const REUSED_KEY = "This Idempotency-Key was already used with another body";
/** A queued registration takes about a second. */
const PENDING_RETRY_AFTER_SECONDS = 5;
/** Unlisted agents free a place when listed or expired: hours, not seconds. */
const UNLISTED_RETRY_AFTER_SECONDS = 3_600;

/** Registers an agent: answers at once with a queued job; validation happens in the background. */
agentRoutes.post(
  "/",
  {
    tag: "Agents",
    summary: "Register an agent from its manifest",
    description: "Asynchronous: poll the job. Rejections are reported through the job.",
    security: "bearer",
    scope: "create",
    body: manifest,
    idempotent: true,
    answer: { status: 202, description: "The registration's job", schema: answers.jobAccepted },
    errors: ["invalid_request", "payload_too_large", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const { text: body } = await readJsonObject(c, { maxBytes: MAX_BODY_BYTES, what: "manifest" });
    const idempotencyKey = idempotencyKeyOf(c);

    const deps = c.get("deps");
    const submission = await submitRegistration(
      { db: deps.db, bus: deps.bus, sealingKey: deps.sealingKey, log: deps.log },
      { wallet: callerWallet(c), body, idempotencyKey, quota: deps.settings.registrationQuota },
    );
    return reply(c, accepted(submission, deps.settings.registrationQuota));
  },
);

/**
 * Registers a new version of an agent, by its creator only: validated in the background as a
 * registration is; the catalogue and runs switch to it once its listing's on-chain `metadata_uri`
 * names it (the job's result says how to call `updateListing`). `:agent_id` is the registration's
 * agent id or the listing id.
 */
agentRoutes.post(
  "/:agent_id/versions",
  {
    tag: "Agents",
    summary: "Register a new version of an agent (its creator only)",
    description:
      "Asynchronous, validated as a registration is; the name stays the agent's. The job's result gives the arguments of `updateListing`: search, detail and runs switch to the version once the listing's on-chain metadata_uri names it. Earlier versions stay readable by content id.",
    security: "bearer",
    scope: "create",
    pathParameters: { agent_id: "The registration's agent id, or the API listing id" },
    body: manifest,
    idempotent: true,
    answer: { status: 202, description: "The version's job", schema: answers.jobAccepted },
    errors: ["invalid_request", "payload_too_large", "not_found", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const deps = c.get("deps");
    const param = c.req.param("agent_id");
    const onChainId = parseApiListingId(param);
    const [agent] = await deps.db
      .select({ agentId: agents.agentId, creator: agents.creator })
      .from(agents)
      .where(onChainId ? eq(agents.onChainListingId, onChainId) : eq(agents.agentId, param));
    if (!agent) throw new ApiError("not_found", "No agent has this id");
    const wallet = callerWallet(c);
    if (agent.creator !== wallet.toLowerCase()) {
      throw new ApiError("forbidden", "Only the agent's creator may register a version of it");
    }
    const { text: manifest } = await readJsonObject(c, {
      maxBytes: MAX_BODY_BYTES,
      what: "manifest",
    });
    const submission = await submitRegistration(
      { db: deps.db, bus: deps.bus, sealingKey: deps.sealingKey, log: deps.log },
      {
        wallet,
        kind: "version",
        body: `{"agent_id":${JSON.stringify(agent.agentId)},"manifest":${manifest}}`,
        idempotencyKey: idempotencyKeyOf(c),
        quota: deps.settings.registrationQuota,
      },
    );
    return reply(c, accepted(submission, deps.settings.registrationQuota));
  },
);

/** The job a submission queued (or found under its Idempotency-Key), or why it was refused. */
function accepted(submission: Submission, quota: RegistrationQuota) {
  switch (submission.outcome) {
    case "queued":
      return { job_id: submission.jobId, status: submission.status };
    case "idempotency_conflict":
      throw new ApiError("invalid_request", REUSED_KEY);
    case "too_many_pending":
      throw new ApiError(
        "rate_limit_exceeded",
        `This wallet has ${quota.queuedPerWallet} registrations queued; retry once they are processed`,
        { retryAfterSeconds: PENDING_RETRY_AFTER_SECONDS },
      );
    case "too_many_unlisted":
      throw new ApiError(
        "rate_limit_exceeded",
        `This wallet has ${quota.unlistedPerWallet} agents registered and never listed; list them, or wait until unlisted ones expire after ${UNLISTED_AGENT_EXPIRY_DAYS} days`,
        { retryAfterSeconds: UNLISTED_RETRY_AFTER_SECONDS },
      );
  }
}
