import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Bus } from "../bus/bus.ts";
import { sealRecord } from "../crypto/sealedRecord.ts";
import { jobs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { newJobId } from "../ids/randomIds.ts";
import type { Logger } from "../log.ts";
import { publishJob } from "./publishJob.ts";
import { quotaRefusal, type RegistrationQuota } from "./registrationQuota.ts";

export type Submission =
  | { outcome: "queued"; jobId: string; status: string }
  | { outcome: "idempotency_conflict" }
  /** The wallet has as many jobs queued as its quota allows. */
  | { outcome: "too_many_pending" }
  /** The wallet has as many agents registered and never listed as its quota allows. */
  | { outcome: "too_many_unlisted" };

/**
 * Stores a registration request, or one for a new version of an agent, as a queued job (sealed: it
 * carries the prompt and vendor credentials) and publishes it. The same Idempotency-Key with the
 * same body returns the same job. A wallet's queued jobs and its agents never listed are bounded
 * (`registrationQuota.ts`), counted under a lock on the wallet so that concurrent requests cannot
 * pass the bound together.
 */
export async function submitRegistration(
  { db, bus, sealingKey, log }: { db: Database; bus: Bus; sealingKey: Uint8Array; log: Logger },
  {
    wallet,
    body,
    idempotencyKey,
    kind = "registration",
    quota,
  }: {
    wallet: string;
    body: string;
    idempotencyKey?: string;
    kind?: "registration" | "version";
    quota: RegistrationQuota;
  },
): Promise<Submission> {
  const requestHash = createHash("sha256").update(body).digest("hex");
  const jobId = newJobId();
  const { sealed, sealingKeyId } = sealRecord(sealingKey, Buffer.from(body), jobId);
  const submission = await db.transaction(async (tx): Promise<Submission> => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`jobs:${wallet.toLowerCase()}`}, 0))`,
    );
    if (idempotencyKey !== undefined) {
      const [existing] = await tx
        .select({ id: jobs.id, status: jobs.status, requestHash: jobs.requestHash })
        .from(jobs)
        .where(and(eq(jobs.wallet, wallet), eq(jobs.idempotencyKey, idempotencyKey)));
      if (existing) {
        return existing.requestHash === requestHash
          ? { outcome: "queued", jobId: existing.id, status: existing.status }
          : { outcome: "idempotency_conflict" };
      }
    }
    const refusal = await quotaRefusal(tx, wallet, kind, quota);
    if (refusal) return { outcome: refusal };
    await tx.insert(jobs).values({
      id: jobId,
      wallet,
      kind,
      status: "queued",
      idempotencyKey,
      requestHash,
      request: sealed,
      sealingKeyId,
    });
    return { outcome: "queued", jobId, status: "queued" };
  });
  if (submission.outcome !== "queued" || submission.jobId !== jobId) return submission;

  await publishJob(db, bus, jobId).catch((error: unknown) => {
    log.warn("job not yet on the bus; the outbox relay will publish it", {
      job_id: jobId,
      error: String(error),
    });
  });
  return submission;
}
