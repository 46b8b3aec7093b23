import type { ManifestViolation } from "../manifest/validateManifest.ts";

/** Why a job failed, as `GET /v1/jobs/:job_id` reports it. */
export type JobError =
  | { code: "manifest_rejected"; message: string; violations: ManifestViolation[] }
  | { code: "internal_error"; message: string };

export type JobErrorCode = JobError["code"];
