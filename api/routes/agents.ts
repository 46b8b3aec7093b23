import { Hono } from "hono";
import { submitRegistration } from "../../lib/jobs/submitRegistration.ts";
import { type AppEnv, callerWallet } from "../context.ts";
import { ApiError } from "../errors.ts";

/** The manifest limit; the body may be exactly this large. */
export const MAX_MANIFEST_BYTES = 64 * 1024;

export const agentRoutes = new Hono<AppEnv>();

/** Registers an agent: answers at once with a queued job; validation happens in the background. */
agentRoutes.post("/", async (c) => {
  if (!c.req.header("content-type")?.toLowerCase().startsWith("application/json")) {
    throw new ApiError("invalid_request", "Content-Type must be application/json");
  }
  const body = await c.req.text();
  const size = Buffer.byteLength(body);
  if (size > MAX_MANIFEST_BYTES) {
    throw new ApiError(
      "payload_too_large",
      `The manifest is ${size} bytes; the limit is ${MAX_MANIFEST_BYTES} bytes (64 KB)`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not the parser's message: it quotes the input, which may hold a secret.
    throw new ApiError("invalid_request", "The manifest is not valid JSON");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ApiError("invalid_request", "The manifest must be a JSON object");
  }
  const idempotencyKey = c.req.header("idempotency-key");
  if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
    throw new ApiError(
      "invalid_request",
      "Idempotency-Key must be 1 to 255 visible ASCII characters",
    );
  }

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
