import type { Address, Hex } from "viem";
import { agents } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";

/** What a registered agent shows renters: the manifest without its prompt and credentials. */
export type PublicManifest = {
  name: string;
  category: string;
  description: string;
  title?: string;
  sample_output?: string[];
  creator_display_name?: string;
  [field: string]: unknown;
};

export type RegisteredAgent = {
  agentId: string;
  onChainListingId: Hex;
  creator: Address;
  publicManifest: PublicManifest;
  metadataUri: string;
};

/** Stores a registered agent's public listing fields, derived from its public manifest. */
export async function saveAgent(db: Database, agent: RegisteredAgent): Promise<void> {
  await db.insert(agents).values({
    agentId: agent.agentId,
    onChainListingId: agent.onChainListingId.toLowerCase(),
    creator: agent.creator.toLowerCase(),
    ...shownFields(agent.publicManifest, agent.creator, agent.metadataUri),
  });
}

/** What the catalogue shows of an agent at the version whose public manifest is `manifest`. */
export function shownFields(manifest: PublicManifest, creator: string, metadataUri: string) {
  return {
    title: manifest.title ?? titleFromName(manifest.name),
    description: manifest.description,
    category: manifest.category,
    sampleOutput: manifest.sample_output ?? [],
    creatorDisplayName: manifest.creator_display_name ?? shortAddress(creator),
    metadataUri,
    publicManifest: manifest,
  };
}

/** `code-review-bot` → `Code Review Bot`. */
export function titleFromName(name: string): string {
  return name
    .split("-")
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join(" ");
}

function shortAddress(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}
