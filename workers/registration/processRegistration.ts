import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { agentVersionId } from "../../lib/agents/agentVersionId.ts";
import { saveAgent } from "../../lib/agents/saveAgent.ts";
import { openRecord } from "../../lib/crypto/sealedRecord.ts";
import { agentSecrets, agentVersions, jobs, manifests } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import type { JobError } from "../../lib/jobs/jobError.ts";
import { buildRegistration, type ManifestValidator } from "./buildRegistration.ts";
import { type RegistrationOutcome, settleQueuedJob } from "./jobOutcome.ts";
import { processVersion } from "./processVersion.ts";
import { sealPrivatePart } from "./sealPrivatePart.ts";

/** A failure no retry can fix: the job fails at once instead of being delivered again. */
export class PermanentJobFailure extends Error {}

/**
 * Settles a queued registration: the agent stored (public manifest by content id, listing fields,
 * the private part sealed to the listing, with a new webhook signing secret for a connected agent)
 * or the job failed with the manifest's violations. The
 * manifest is validated first, with `validateManifest` (compiling its schemas may take a while),
 * holding no lock and no connection; the outcome is then written in one transaction with the job row
 * locked and still queued, so a redelivered or concurrent delivery can never register an agent twice.
 * A job for a new version of an agent is settled by `processVersion`.
 */
export async function processRegistration(
  {
    db,
    sealingKey,
    validateManifest,
  }: { db: Database; sealingKey: Uint8Array; validateManifest?: ManifestValidator },
  jobId: string,
): Promise<RegistrationOutcome> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, jobId));
  if (job?.status !== "queued" || !job.request) return "already_done";

  const request = openRequest(
    sealingKey,
    { sealed: job.request, sealingKeyId: job.sealingKeyId },
    job.id,
  );
  if (job.kind === "version") {
    return processVersion({ db, sealingKey, validateManifest }, job, request);
  }
  const seed: Hex = `0x${randomBytes(32).toString("hex")}`;
  const built = await buildRegistration(request, job.wallet as Address, seed, validateManifest);

  return settleQueuedJob(db, job.id, async (tx, outcome) => {
    if (!built.ok) return outcome.fail(built.violations);
    const registration = built.registration;
    const { onChainListingId, metadataUri } = registration;
    await tx
      .insert(manifests)
      .values({ cid: registration.cid, content: registration.content })
      .onConflictDoNothing();
    await saveAgent(tx, {
      agentId: registration.agentId,
      onChainListingId,
      creator: job.wallet as Address,
      publicManifest: registration.publicManifest,
      metadataUri,
    });
    // The first version: its private part is the listing's row in agent_secrets.
    await tx.insert(agentVersions).values({
      id: agentVersionId(onChainListingId, metadataUri),
      onChainListingId: onChainListingId.toLowerCase(),
      metadataUri,
      publicManifest: registration.publicManifest,
    });
    await tx.insert(agentSecrets).values({
      onChainListingId,
      ...sealPrivatePart(sealingKey, registration.secret, onChainListingId),
    });
    return outcome.complete({
      agent_id: registration.agentId,
      listing_id: toApiListingId(onChainListingId),
      create_listing: { seed, metadata_uri: metadataUri, on_chain_listing_id: onChainListingId },
    });
  });
}

/** Fails a job still queued, e.g. once its deliveries are spent or its failure is permanent. */
export async function failJob(db: Database, jobId: string, error: JobError): Promise<void> {
  await db
    .update(jobs)
    .set({ status: "failed", error, request: null, sealingKeyId: null, updatedAt: new Date() })
    .where(and(eq(jobs.id, jobId), eq(jobs.status, "queued")));
}

/**
 * The sealed request as JSON; one that does not open never will with this worker's key. The message
 * names the key it was sealed under and the key this worker holds.
 */
function openRequest(
  sealingKey: Uint8Array,
  request: { sealed: Buffer; sealingKeyId: string | null },
  jobId: string,
) {
  let text: string;
  try {
    text = openRecord(sealingKey, request, jobId).toString();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PermanentJobFailure(`the sealed request cannot be opened: ${reason}`, {
      cause: error,
    });
  }
  return JSON.parse(text) as Record<string, unknown>;
}
