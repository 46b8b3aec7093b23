import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { type Address, encodePacked, type Hex, keccak256 } from "viem";
import { saveAgent } from "../../lib/agents/saveAgent.ts";
import { contentId } from "../../lib/content/contentId.ts";
import { open, seal } from "../../lib/crypto/secretBox.ts";
import { agentSecrets, jobs, manifests } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import {
  canonicalJson,
  privateManifest,
  publicManifest,
} from "../../lib/manifest/publicManifest.ts";
import { type ManifestViolation, validateManifest } from "../../lib/manifest/validateManifest.ts";

export type RegistrationOutcome = "completed" | "failed" | "already_done";

/**
 * Validates a queued registration and, if it passes, stores the agent: public manifest by content id,
 * listing fields, the private part sealed to the listing, and the job's result. One transaction with
 * the job row locked, so a redelivered or concurrent delivery can never register an agent twice.
 */
export async function processRegistration(
  { db, sealingKey }: { db: Database; sealingKey: Uint8Array },
  jobId: string,
): Promise<RegistrationOutcome> {
  return db.transaction(async (tx) => {
    const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for("update");
    if (job?.status !== "queued" || !job.request) return "already_done";

    const { vendor_credentials: vendorCredentials, ...input } = JSON.parse(
      open(sealingKey, job.request, job.id).toString(),
    ) as Record<string, unknown>;
    const validation = validateManifest(input);
    const violations = validation.ok ? [] : validation.violations;
    violations.push(...vendorCredentialViolations(vendorCredentials, input));
    if (!validation.ok || violations.length > 0) {
      await tx
        .update(jobs)
        .set({ status: "failed", error: rejection(violations), ...settled() })
        .where(eq(jobs.id, job.id));
      return "failed";
    }

    const manifest = validation.manifest;
    const creator = job.wallet as Address;
    const seed: Hex = `0x${randomBytes(32).toString("hex")}`;
    const onChainListingId = keccak256(encodePacked(["address", "bytes32"], [creator, seed]));
    const content = Buffer.from(canonicalJson(publicManifest(manifest)));
    const cid = contentId(content);
    const metadataUri = `ipfs://${cid}`;
    const agentId = `${manifest.name}-${onChainListingId.slice(2, 10)}`;

    await tx.insert(manifests).values({ cid, content }).onConflictDoNothing();
    await saveAgent(tx, {
      agentId,
      onChainListingId,
      creator,
      publicManifest: publicManifest(manifest),
      metadataUri,
    });
    const secret = { ...privateManifest(manifest), vendor_credentials: vendorCredentials };
    await tx.insert(agentSecrets).values({
      onChainListingId,
      sealed: seal(sealingKey, Buffer.from(JSON.stringify(secret)), onChainListingId),
    });
    await tx
      .update(jobs)
      .set({
        status: "completed",
        result: {
          agent_id: agentId,
          listing_id: toApiListingId(onChainListingId),
          create_listing: {
            seed,
            metadata_uri: metadataUri,
            on_chain_listing_id: onChainListingId,
          },
        },
        ...settled(),
      })
      .where(eq(jobs.id, job.id));
    return "completed";
  });
}

/**
 * A settled job drops its sealed request; it was delivered, so it counts as published even if the
 * publisher's own mark lost the race to this worker's lock.
 */
function settled() {
  return {
    request: null,
    publishedAt: sql`coalesce(${jobs.publishedAt}, now())`,
    updatedAt: new Date(),
  };
}

/** Hosted-vendor credentials: a flat map of strings, only for agents run on a hosted vendor. */
function vendorCredentialViolations(credentials: unknown, manifest: Record<string, unknown>) {
  if (credentials === undefined) return [];
  const violations: ManifestViolation[] = [];
  const provider = (manifest.model as { provider?: unknown } | undefined)?.provider;
  if (typeof manifest.entrypoint_url === "string" || provider === "self_hosted") {
    violations.push({
      field: "vendor_credentials",
      rule: "not_allowed",
      message: "vendor credentials are held only for agents run on a hosted vendor",
    });
  }
  const isFlatStringMap =
    credentials !== null &&
    typeof credentials === "object" &&
    !Array.isArray(credentials) &&
    Object.values(credentials).every((value) => typeof value === "string" && value.length <= 4096);
  if (!isFlatStringMap) {
    violations.push({
      field: "vendor_credentials",
      rule: "type",
      message: "must be an object of string values",
    });
  }
  return violations;
}

function rejection(violations: ManifestViolation[]) {
  return {
    code: "manifest_rejected",
    message: `The manifest was rejected: ${violations.map((v) => `${v.field} (${v.rule})`).join(", ")}`,
    violations,
  };
}
