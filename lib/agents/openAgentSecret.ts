import { and, eq, type SQL, sql } from "drizzle-orm";
import { openRecord } from "../crypto/sealedRecord.ts";
import { agentSecrets, agents, agentVersions } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";

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
  return (await readSealedAgent(db, onChainListingId))?.open(sealingKey);
}

/** The agent version a run of the listing runs; undefined when no agent was registered under it. */
export async function readSealedAgent(
  db: Database,
  onChainListingId: string,
): Promise<SealedAgent | undefined> {
  const [row] = await db.execute<SealedAgentRow>(
    sealedAgentRow(sql`${onChainListingId.toLowerCase()}`),
  );
  return row && sealedAgent(onChainListingId, row);
}

/** The sealed row of the agent version a run of a listing runs, as `sealedAgentRow` selects it. */
export type SealedAgentRow = {
  registered_sealed: Buffer | null;
  registered_key_id: string | null;
  shown_manifest: unknown;
  shown_metadata_uri: string | null;
  version_id: string | null;
  version_sealed: Buffer | null;
  version_key_id: string | null;
  version_manifest: unknown;
  version_metadata_uri: string | null;
};

/** An agent version as a run needs it, its private part still sealed. */
export type SealedAgent = {
  /** The version's public manifest. */
  publicManifest: unknown;
  /** Names this version among every listing's (listing id and metadata URI): a cache's key for it. */
  version: string;
  /** Where its public manifest is published: the listing's metadata URI for this version. */
  metadataUri: string;
  /** Its private part; undefined when none was sealed (an agent saved without one). */
  open: (sealingKey: Uint8Array) => AgentSecret | undefined;
};

/**
 * Selects the sealed row of the agent version a run of the listing `listingId` (an SQL expression)
 * runs: the one the catalogue shows (`app.agents`). No row when no agent was saved under it.
 */
export function sealedAgentRow(listingId: SQL): SQL {
  return sql`
    select s.sealed as registered_sealed, s.sealing_key_id as registered_key_id,
      a.public_manifest as shown_manifest, a.metadata_uri as shown_metadata_uri,
      v.id as version_id, v.sealed as version_sealed, v.sealing_key_id as version_key_id,
      v.public_manifest as version_manifest, v.metadata_uri as version_metadata_uri
    from ${agents} a
    left join ${agentSecrets} s on s.on_chain_listing_id = a.on_chain_listing_id
    left join ${agentVersions} v
      on v.on_chain_listing_id = a.on_chain_listing_id and v.metadata_uri = a.metadata_uri
    where a.on_chain_listing_id = ${listingId}`;
}

/** The agent version a `sealedAgentRow` of the listing `onChainListingId` names. */
export function sealedAgent(onChainListingId: string, row: SealedAgentRow): SealedAgent {
  const listingId = onChainListingId.toLowerCase();
  if (row.version_id && row.version_sealed) {
    const sealed = { sealed: row.version_sealed, sealingKeyId: row.version_key_id };
    const recordId = row.version_id;
    return {
      publicManifest: row.version_manifest,
      version: `${listingId} ${row.version_metadata_uri}`,
      metadataUri: row.version_metadata_uri ?? "",
      open: (sealingKey) => JSON.parse(openRecord(sealingKey, sealed, recordId).toString()),
    };
  }
  // The version registered with the agent: its private part is the listing's own.
  const { registered_sealed, registered_key_id } = row;
  const sealed = registered_sealed && {
    sealed: registered_sealed,
    sealingKeyId: registered_key_id,
  };
  return {
    publicManifest: row.version_manifest ?? row.shown_manifest,
    version: `${listingId} ${row.version_metadata_uri ?? row.shown_metadata_uri}`,
    metadataUri: row.version_metadata_uri ?? row.shown_metadata_uri ?? "",
    open: (sealingKey) =>
      sealed ? JSON.parse(openRecord(sealingKey, sealed, listingId).toString()) : undefined,
  };
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
