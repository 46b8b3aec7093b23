import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { sealRecord } from "../crypto/sealedRecord.ts";
import { jobs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { newJobId } from "../ids/randomIds.ts";
import type { Logger } from "../log.ts";
import { publishJob } from "./publishJob.ts";

export type Submission =
  | { outcome: "queued"; jobId: string; status: string }
  | { outcome: "idempotency_conflict" };

/**
 * Stores a registration request, or one for a new version of an agent, as a queued job (sealed: it
 * carries the prompt and vendor credentials) and publishes it. The same Idempotency-Key with the
 * same body returns the same job.
 */
export async function submitRegistration(
  { db, bus, sealingKey, log }: { db: Database; bus: Bus; sealingKey: Uint8Array; log: Logger },
  {
    wallet,
    body,
    idempotencyKey,
    kind = "registration",
  }: { wallet: string; body: string; idempotencyKey?: string; kind?: "registration" | "version" },
): Promise<Submission> {
  const requestHash = createHash("sha256").update(body).digest("hex");
  const jobId = newJobId();
  const { sealed, sealingKeyId } = sealRecord(sealingKey, Buffer.from(body), jobId);
  const inserted = await db
    .insert(jobs)
    .values({
      id: jobId,
      wallet,
      kind,
      status: "queued",
      idempotencyKey,
      requestHash,
      request: sealed,
      sealingKeyId,
    })
    .onConflictDoNothing({ target: [jobs.wallet, jobs.idempotencyKey] })
    .returning({ id: jobs.id });

  if (inserted.length === 0 && idempotencyKey !== undefined) {
    const [existing] = await db
      .select({ id: jobs.id, status: jobs.status, requestHash: jobs.requestHash })
      .from(jobs)
      .where(and(eq(jobs.wallet, wallet), eq(jobs.idempotencyKey, idempotencyKey)));
    if (!existing || existing.requestHash !== requestHash)
      return { outcome: "idempotency_conflict" };
    return { outcome: "queued", jobId: existing.id, status: existing.status };
  }

  await publishJob(db, bus, jobId).catch((error: unknown) => {
    log.warn("job not yet on the bus; the outbox relay will publish it", {
      job_id: jobId,
      error: String(error),
    });
  });
  return { outcome: "queued", jobId, status: "queued" };
}
