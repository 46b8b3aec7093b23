import { sql } from "drizzle-orm";
import type { Hex } from "viem";
import { agents, executionLimits } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { looksLikeAgentId } from "../../lib/ids/agentId.ts";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import { DEFAULT_TIMEOUT_SECONDS } from "../../lib/manifest/manifestShape.ts";
import { ApiError } from "../http/errors.ts";
import type { CatalogueCache } from "../listings/catalogueCache.ts";

/** A published listing as execution needs it: the agent's public manifest rules. */
export type AgentListing = {
  onChainListingId: Hex;
  creator: Hex;
  /** Undefined when the manifest declares none: any input goes. */
  inputSchema: object | undefined;
  /** Names the shown version among every listing's: the compiled input schema's key. */
  version: string;
  /** The manifest's `timeout_seconds`: a run's limit and its default. */
  timeoutSeconds: number;
  /** The creator's execution limit per credential and minute; undefined: the default. */
  executionLimitPerMinute: number | undefined;
};

const { listing } = projections;

/**
 * The published listing an `agent_id` names, by its listing id (`lst_…`) or its registration's
 * agent id, with its execution limit: 400 `invalid_listing_id` when it is neither form, 404
 * `listing_not_found` when no registered agent is listed on-chain under it. Kept with the
 * catalogue's answers, so that most executions read none of it.
 */
export function findAgentListing(
  { db, catalogue }: { db: Database; catalogue: CatalogueCache },
  agentId: string,
): Promise<AgentListing> {
  const onChainId = parseApiListingId(agentId);
  if (!onChainId && !looksLikeAgentId(agentId)) {
    throw new ApiError(
      "invalid_listing_id",
      "agent_id is a listing id (lst_<64 hex>) or a registered agent's id",
    );
  }
  const key = `agent-listing:${onChainId?.toLowerCase() ?? agentId}`;
  return catalogue.answer(key, () => readAgentListing(db, onChainId, agentId));
}

/** One round trip: the listing, its agent's current version and its execution limit. */
async function readAgentListing(
  db: Database,
  onChainId: Hex | undefined,
  agentId: string,
): Promise<AgentListing> {
  const match = onChainId
    ? sql`${agents.onChainListingId} = ${onChainId}`
    : sql`${agents.agentId} = ${agentId}`;
  const [row] = await db.execute<{
    on_chain_listing_id: Hex;
    creator: Hex;
    public_manifest: { input_schema?: unknown; timeout_seconds?: unknown };
    metadata_uri: string;
    requests_per_minute: number | null;
  }>(sql`
    select ${agents.onChainListingId} as on_chain_listing_id, ${listing.creator} as creator,
      ${agents.publicManifest} as public_manifest, ${agents.metadataUri} as metadata_uri,
      ${executionLimits.requestsPerMinute} as requests_per_minute
    from ${agents} join ${listing} on ${listing.id} = ${agents.onChainListingId}
      left join ${executionLimits}
        on ${executionLimits.onChainListingId} = ${agents.onChainListingId}
    where ${match}`);
  if (!row) throw new ApiError("listing_not_found", "No published listing has this id");
  const { input_schema, timeout_seconds } = row.public_manifest;
  return {
    onChainListingId: row.on_chain_listing_id,
    creator: row.creator,
    inputSchema: input_schema && typeof input_schema === "object" ? input_schema : undefined,
    version: `${row.on_chain_listing_id} ${row.metadata_uri}`,
    timeoutSeconds: typeof timeout_seconds === "number" ? timeout_seconds : DEFAULT_TIMEOUT_SECONDS,
    executionLimitPerMinute: row.requests_per_minute ?? undefined,
  };
}
