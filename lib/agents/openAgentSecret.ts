import { and, eq, sql } from "drizzle-orm";
import { openRecord } from "../crypto/sealedRecord.ts";
import { agentSecrets, agents, agentVersions } from "../db/appSchema.ts";
import { type Database, projections } from "../db/projections.ts";

/** An agent's private part, as registration sealed it to its listing. */
export type AgentSecret = {
  /** Declarative agents. */
  system_prompt?: string;
  /** Connected agents: where their webhook is called. */
  entrypoint_url?: string;
  /** Connected agents: signs every webhook call (Standard Webhooks); the creator verifies with it. */
  webhook_secret?: string;
  /** `self_hosted` model servers. */
  model_endpoint_url?: string;
  /** Hosted vendors: the creator's credentials. */
  vendor_credentials?: Record<string, string>;
};

/**
 * Opens the private part sealed to an on-chain listing id, or undefined when no agent was registered
 * under it. Throws when it was sealed under another key (`SealedUnderAnotherKey`) or was altered.
 */
export async function openAgentSecret(
  db: Database,
  sealingKey: Uint8Array,
  onChainListingId: string,
): Promise<AgentSecret | undefined> {
  return (await openAgent(db, sealingKey, onChainListingId))?.secret;
}

type VersionRow = {
  registered_sealed: Buffer;
  registered_key_id: string | null;
  shown_manifest: unknown;
  version_id: string | null;
  version_sealed: Buffer | null;
  version_key_id: string | null;
  version_manifest: unknown;
};

/**
 * Opens an agent's private part together with its public manifest, in one read: what a run needs.
 * The version is the one the listing's indexed `metadata_uri` names, or, when it names none, the one
 * the catalogue shows. Undefined when no agent was registered under the listing id.
 */
export async function openAgent(
  db: Database,
  sealingKey: Uint8Array,
  onChainListingId: string,
): Promise<{ secret: AgentSecret; publicManifest: unknown } | undefined> {
  const listingId = onChainListingId.toLowerCase();
  const [row] = await db.execute<VersionRow>(sql`
    select s.sealed as registered_sealed, s.sealing_key_id as registered_key_id,
      a.public_manifest as shown_manifest, v.id as version_id, v.sealed as version_sealed,
      v.sealing_key_id as version_key_id, v.public_manifest as version_manifest
    from ${agentSecrets} s
    left join ${agents} a on a.on_chain_listing_id = s.on_chain_listing_id
    left join ${projections.listing} l on l.id = s.on_chain_listing_id
    left join lateral (
      select * from ${agentVersions} v
      where v.on_chain_listing_id = s.on_chain_listing_id
        and v.metadata_uri in (l.metadata_uri, a.metadata_uri)
      order by v.metadata_uri = l.metadata_uri desc nulls last
      limit 1
    ) v on true
    where s.on_chain_listing_id = ${listingId}`);
  if (!row) return undefined;
  if (row.version_id && row.version_sealed) {
    const sealed = { sealed: row.version_sealed, sealingKeyId: row.version_key_id };
    const secret = JSON.parse(openRecord(sealingKey, sealed, row.version_id).toString());
    return { secret: secret as AgentSecret, publicManifest: row.version_manifest };
  }
  // The version registered with the agent: its private part is the listing's own.
  const sealed = { sealed: row.registered_sealed, sealingKeyId: row.registered_key_id };
  const secret = JSON.parse(openRecord(sealingKey, sealed, listingId).toString()) as AgentSecret;
  return { secret, publicManifest: row.version_manifest ?? row.shown_manifest };
}

/**
 * Opens the private part of the version of a listing's agent whose public manifest `metadataUri`
 * names; the registered one for a URI that names no later version.
 */
export async function openVersionSecret(
  db: Database,
  sealingKey: Uint8Array,
  onChainListingId: string,
  metadataUri: string,
): Promise<AgentSecret | undefined> {
  const listingId = onChainListingId.toLowerCase();
  const [version] = await db
    .select({ id: agentVersions.id, sealed: agentVersions.sealed, key: agentVersions.sealingKeyId })
    .from(agentVersions)
    .where(
      and(
        eq(agentVersions.onChainListingId, listingId),
        eq(agentVersions.metadataUri, metadataUri),
      ),
    );
  if (version?.sealed) {
    const sealed = { sealed: version.sealed, sealingKeyId: version.key };
    return JSON.parse(openRecord(sealingKey, sealed, version.id).toString()) as AgentSecret;
  }
  // The version registered with the agent (or one from before versions were kept).
  const [registered] = await db
    .select({ sealed: agentSecrets.sealed, sealingKeyId: agentSecrets.sealingKeyId })
    .from(agentSecrets)
    .where(eq(agentSecrets.onChainListingId, listingId));
  if (!registered) return undefined;
  return JSON.parse(openRecord(sealingKey, registered, listingId).toString()) as AgentSecret;
}
