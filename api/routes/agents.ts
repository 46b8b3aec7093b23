import { Hono } from "hono";
import { submitRegistration } from "../../lib/jobs/submitRegistration.ts";
import { type AppEnv, callerWallet } from "../context.ts";
import { ApiError } from "../errors.ts";
import { idempotencyKeyOf } from "../idempotencyKey.ts";
import { MAX_BODY_BYTES } from "../limits.ts";
import { readJsonObject } from "../readJsonObject.ts";

export const agentRoutes = new Hono<AppEnv>();

/** Registers an agent: answers at once with a queued job; validation happens in the background. */
agentRoutes.post("/", async (c) => {
  const { text: body } = await readJsonObject(c, { maxBytes: MAX_BODY_BYTES, what: "manifest" });
  const idempotencyKey = idempotencyKeyOf(c);

  const deps = c.get("deps");
  const submission = await submitRegistration(
    { db: deps.db, bus: deps.bus, sealingKey: deps.sealingKey, log: deps.log },
    { wallet: callerWallet(c), body, idempotencyKey },
  );
  if (submission.outcome === "idempotency_conflict") {
    throw new ApiError(
      "invalid_request",
      "This Idempotency-Key was already used with another body",
    );
  }
  return c.json({ job_id: submission.jobId, status: submission.status }, 202);
});
