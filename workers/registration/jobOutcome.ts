import { sql } from "drizzle-orm";
import { jobs } from "../../lib/db/appSchema.ts";
import type { JobError } from "../../lib/jobs/jobError.ts";
import type { ManifestViolation } from "../../lib/manifest/validateManifest.ts";

export type RegistrationOutcome = "completed" | "failed" | "already_done";

/**
 * A settled job drops its sealed request; it was delivered, so it counts as published even if the
 * publisher's own mark lost the race to this worker's lock.
 */
export function settled() {
  return {
    request: null,
    sealingKeyId: null,
    publishedAt: sql`coalesce(${jobs.publishedAt}, now())`,
    updatedAt: new Date(),
  };
}

export function rejection(violations: ManifestViolation[]): JobError {
  return {
    code: "manifest_rejected",
    message: `The manifest was rejected: ${violations.map((v) => `${v.field} (${v.rule})`).join(", ")}`,
    violations,
  };
}
