import { and, eq, ne } from "drizzle-orm";
import { agents, agentVersions } from "../db/appSchema.ts";
import { type Database, projections } from "../db/projections.ts";
import { type PublicManifest, shownFields } from "./saveAgent.ts";

const { listing } = projections;

/**
 * Shows, for each agent (or the one of `onChainListingId`) whose listing's indexed `metadata_uri`
 * names another of its registered versions, that version: the switch follows the chain. A URI that
 * names no version leaves the agent as it was (the detail flags it). Idempotent, so any number of
 * processes may run it at once. Returns the agents switched.
 */
export async function switchListedVersions(
  db: Database,
  onChainListingId?: string,
): Promise<number> {
  const named = await db
    .select({
      agentId: agents.agentId,
      creator: agents.creator,
      metadataUri: agentVersions.metadataUri,
      publicManifest: agentVersions.publicManifest,
    })
    .from(agents)
    .innerJoin(listing, eq(listing.id, agents.onChainListingId))
    .innerJoin(
      agentVersions,
      and(
        eq(agentVersions.onChainListingId, agents.onChainListingId),
        eq(agentVersions.metadataUri, listing.metadataUri),
      ),
    )
    .where(
      and(
        ne(agents.metadataUri, listing.metadataUri),
        onChainListingId ? eq(agents.onChainListingId, onChainListingId.toLowerCase()) : undefined,
      ),
    );
  for (const version of named) {
    const manifest = version.publicManifest as PublicManifest;
    await db
      .update(agents)
      .set(shownFields(manifest, version.creator, version.metadataUri))
      .where(and(eq(agents.agentId, version.agentId), ne(agents.metadataUri, version.metadataUri)));
  }
  return named.length;
}
