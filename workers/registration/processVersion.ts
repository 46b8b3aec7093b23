import { eq } from "drizzle-orm";
import { agentVersionId } from "../../lib/agents/agentVersionId.ts";
import type { PublicManifest } from "../../lib/agents/saveAgent.ts";
import { switchListedVersions } from "../../lib/agents/switchListedVersions.ts";
import { agents, agentVersions, manifests } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import type { ManifestViolation } from "../../lib/manifest/validateManifest.ts";
import { buildManifestVersion, type ManifestValidator } from "./buildRegistration.ts";
import { type RegistrationOutcome, settleQueuedJob } from "./jobOutcome.ts";
import { sealPrivatePart } from "./sealPrivatePart.ts";

/** A version job's sealed request: the agent it is for and the new manifest. */
type VersionRequest = { agent_id?: unknown; manifest?: unknown };

/**
 * Settles a queued new version of an agent: stored beside the others (its public manifest by
 * content id, its private part sealed to the version) or the job failed with its violations. The
 * catalogue and runs switch to it once the listing's on-chain `metadata_uri` names it: the result
 * says how to call `updateListing` (a connected agent's new webhook secret is read with the job, as
 * at registration, never stored in the clear). As `processRegistration`, the outcome is written in one
 * transaction with the job row locked and still queued.
 */
export async function processVersion(
  {
    db,
    sealingKey,
    validateManifest,
  }: { db: Database; sealingKey: Uint8Array; validateManifest?: ManifestValidator },
  job: { id: string; wallet: string },
  request: VersionRequest,
): Promise<RegistrationOutcome> {
  const [agent] = await db
    .select({
      agentId: agents.agentId,
      onChainListingId: agents.onChainListingId,
      creator: agents.creator,
      publicManifest: agents.publicManifest,
      price: projections.listing.price,
    })
    .from(agents)
    .leftJoin(projections.listing, eq(projections.listing.id, agents.onChainListingId))
    .where(eq(agents.agentId, String(request.agent_id)));
  const manifest = request.manifest as Record<string, unknown>;
  const built = await buildManifestVersion(manifest, validateManifest);
  const violations: ManifestViolation[] = built.ok ? [] : [...built.violations];
  if (agent?.creator !== job.wallet.toLowerCase()) {
    violations.push({
      field: "agent_id",
      rule: "creator_only",
      message: "only the agent's creator may register a version of it",
    });
  }
  const name = (agent?.publicManifest as PublicManifest | undefined)?.name;
  if (built.ok && name !== undefined && built.version.publicManifest.name !== name) {
    violations.push({ field: "name", rule: "unchanged", message: `must stay "${name}"` });
  }

  return settleQueuedJob(db, job.id, async (tx, outcome) => {
    if (!built.ok || !agent || violations.length > 0) return outcome.fail(violations);
    const version = built.version;
    const listingId = agent.onChainListingId;
    const id = agentVersionId(listingId, version.metadataUri);
    const inserted = await tx
      .insert(agentVersions)
      .values({
        id,
        onChainListingId: listingId,
        metadataUri: version.metadataUri,
        publicManifest: version.publicManifest,
        ...sealPrivatePart(sealingKey, version.secret, id),
      })
      .onConflictDoNothing()
      .returning({ id: agentVersions.id });
    if (inserted.length === 0) {
      return outcome.fail([
        {
          field: "manifest",
          rule: "new_version",
          message:
            "its public part is that of a registered version: a new version changes a public field",
        },
      ]);
    }
    await tx
      .insert(manifests)
      .values({ cid: version.cid, content: version.content })
      .onConflictDoNothing();
    // The chain may already name this version (updateListing sent before it was registered).
    await switchListedVersions(tx, listingId);
    return outcome.complete({
      agent_id: agent.agentId,
      listing_id: toApiListingId(listingId as `0x${string}`),
      update_listing: {
        on_chain_listing_id: listingId,
        price: agent.price === null ? null : agent.price.toString(),
        metadata_uri: version.metadataUri,
      },
    });
  });
}
