import { eq, sql } from "drizzle-orm";
import { jobs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { JobError } from "../../lib/jobs/jobError.ts";
import type { JobResult } from "../../lib/jobs/jobResult.ts";
import type { ManifestViolation } from "../../lib/manifest/validateManifest.ts";

export type RegistrationOutcome = "completed" | "failed" | "already_done";

/** What a delivery holding a queued job may write: its failure or its completion. */
export type JobSettlement = {
  fail: (violations: ManifestViolation[]) => Promise<"failed">;
  complete: (result: JobResult) => Promise<"completed">;
};

/**
 * Settles job `jobId` in one transaction with its row locked and still queued, so a redelivered or
 * concurrent delivery can never settle it twice: `settle` stores what the job made through `tx`, then
 * fails or completes it. A job no longer queued is `already_done`, and `settle` does not run.
 */
export function settleQueuedJob(
  db: Database,
  jobId: string,
  settle: (tx: Database, job: JobSettlement) => Promise<RegistrationOutcome>,
): Promise<RegistrationOutcome> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ status: jobs.status })
      .from(jobs)
      .where(eq(jobs.id, jobId))
      .for("update");
    if (locked?.status !== "queued") return "already_done";
    const write = (
      outcome: { status: "failed"; error: JobError } | { status: "completed"; result: JobResult },
    ) =>
      tx
        .update(jobs)
        .set({ ...outcome, ...settled() })
        .where(eq(jobs.id, jobId));
    return settle(tx, {
      fail: async (violations) => {
        await write({ status: "failed", error: rejection(violations) });
        return "failed";
      },
      complete: async (result) => {
        await write({ status: "completed", result });
        return "completed";
      },
    });
  });
}

/**
 * A settled job drops its sealed request; it was delivered, so it counts as published even if the
 * publisher's own mark lost the race to this worker's lock.
 */
function settled() {
  return {
    request: null,
    sealingKeyId: null,
    publishedAt: sql`coalesce(${jobs.publishedAt}, now())`,
    updatedAt: new Date(),
  };
}

function rejection(violations: ManifestViolation[]): JobError {
  return {
    code: "manifest_rejected",
    message: `The manifest was rejected: ${violations.map((v) => `${v.field} (${v.rule})`).join(", ")}`,
    violations,
  };
}
