import { eq } from "drizzle-orm";
import { openRecord } from "../crypto/sealedRecord.ts";
import { agentSecrets } from "../db/appSchema.ts";
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
  const listing = onChainListingId.toLowerCase();
  const [row] = await db
    .select({ sealed: agentSecrets.sealed, sealingKeyId: agentSecrets.sealingKeyId })
    .from(agentSecrets)
    .where(eq(agentSecrets.onChainListingId, listing));
  if (!row) return undefined;
  return JSON.parse(openRecord(sealingKey, row, listing).toString()) as AgentSecret;
}
