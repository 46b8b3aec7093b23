import { eq } from "drizzle-orm";
import { openRecord } from "../crypto/sealedRecord.ts";
import { agentSecrets, agents } from "../db/appSchema.ts";
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
  return (await openAgent(db, sealingKey, onChainListingId))?.secret;
}

/**
 * Opens an agent's private part together with its public manifest, in one read: what a run needs.
 * Undefined when no agent was registered under the listing id.
 */
export async function openAgent(
  db: Database,
  sealingKey: Uint8Array,
  onChainListingId: string,
): Promise<{ secret: AgentSecret; publicManifest: unknown } | undefined> {
  const listing = onChainListingId.toLowerCase();
  const [row] = await db
    .select({
      sealed: agentSecrets.sealed,
      sealingKeyId: agentSecrets.sealingKeyId,
      publicManifest: agents.publicManifest,
    })
    .from(agentSecrets)
    .leftJoin(agents, eq(agents.onChainListingId, agentSecrets.onChainListingId))
    .where(eq(agentSecrets.onChainListingId, listing));
  if (!row) return undefined;
  const secret = JSON.parse(openRecord(sealingKey, row, listing).toString()) as AgentSecret;
  return { secret, publicManifest: row.publicManifest };
}
