import { inArray, sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { agents } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { type CredentialFacts, credentialStatus } from "../../lib/marketplace/credentialStatus.ts";
import type { ListingStatus, RentalModel } from "../../lib/marketplace/vocabulary.ts";
import type { ChainReader } from "../chain/chainReader.ts";
import { readChainTime } from "../credentials/readChainTime.ts";
import type { CatalogueCache } from "../listings/catalogueCache.ts";
import { toolNames } from "./toolNames.ts";

/** An agent the caller holds a credential for, in any status, as its MCP tool. */
export type RentedAgent = {
  onChainListingId: Hex;
  agentId: string;
  toolName: string;
  title: string;
  description: string;
  credential: CredentialFacts;
};

const { credential, listing } = projections;

/**
 * The agents of every published listing the wallet holds a credential for, valid or not, oldest
 * purchase first, named as `toolNames` names them: over all of them, so that a credential lapsing
 * renames no other tool. Kept with the catalogue's answers, which start afresh at every indexed
 * block, so that a wallet's calls between two blocks read them once.
 */
export function rentedAgents(
  { db, catalogue }: { db: Database; catalogue: CatalogueCache },
  wallet: Address,
): Promise<RentedAgent[]> {
  return catalogue.answer(`rented-agents:${wallet.toLowerCase()}`, () =>
    readRentedAgents(db, wallet),
  );
}

async function readRentedAgents(db: Database, wallet: Address): Promise<RentedAgent[]> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select ${credential.listingId} as on_chain_listing_id, ${agents.agentId} as agent_id,
      ${agents.publicManifest}->'name' as name, ${agents.title} as title,
      ${agents.description} as description, ${credential.rentalModel}::text as rental_model,
      ${listing.status}::text as listing_status, ${credential.isRevoked} as is_revoked,
      ${credential.expiresAt} as expires_at, ${credential.balance} as balance,
      ${listing.price} as price, ${credential.agreedPrice} as agreed_price,
      ${credential.exitReclaimableAt} as exit_reclaimable_at
    from ${credential}
    join ${listing} on ${listing.id} = ${credential.listingId}
    join ${agents} on ${agents.onChainListingId} = ${credential.listingId}
    where ${credential.buyer} = ${wallet.toLowerCase()}
    order by ${credential.purchasedAt} asc, ${credential.listingId} asc`);
  const names = toolNames(rows.map((row) => ({ agentId: row.agent_id as string, name: row.name })));
  return rows.map((row) => {
    const agentId = row.agent_id as string;
    return {
      onChainListingId: row.on_chain_listing_id as Hex,
      agentId,
      toolName: names.get(agentId) ?? agentId,
      title: row.title as string,
      description: row.description as string,
      credential: {
        rentalModel: row.rental_model as RentalModel,
        listingStatus: row.listing_status as ListingStatus,
        isRevoked: row.is_revoked as boolean,
        expiresAt: row.expires_at === null ? 0n : BigInt(row.expires_at as string),
        balance: BigInt(row.balance as string),
        price: BigInt(row.price as string),
        agreedPrice: BigInt(row.agreed_price as string),
        exiting: row.exit_reclaimable_at !== null,
      },
    };
  });
}

/**
 * The agents of `rentedAgents` whose credential is valid (its status at the chain's time `active`):
 * what the caller may run now.
 */
export async function runnableAgents(
  deps: { db: Database; catalogue: CatalogueCache; chain: { reader: ChainReader } },
  wallet: Address,
): Promise<RentedAgent[]> {
  const [agents, chainTime] = await Promise.all([
    rentedAgents(deps, wallet),
    readChainTime(deps.chain.reader),
  ]);
  return agents.filter(
    ({ credential }) => credentialStatus(credential, chainTime.timestamp) === "active",
  );
}

/** The input and output schemas of the shown versions of `listings`' agents. */
export async function agentSchemas(
  db: Database,
  listings: readonly Hex[],
): Promise<Map<Hex, { input: unknown; output: unknown }>> {
  if (listings.length === 0) return new Map();
  const rows = await db
    .select({
      onChainListingId: agents.onChainListingId,
      input: sql<unknown>`${agents.publicManifest}->'input_schema'`,
      output: sql<unknown>`${agents.publicManifest}->'output_schema'`,
    })
    .from(agents)
    .where(inArray(agents.onChainListingId, [...listings]));
  return new Map(
    rows.map(({ onChainListingId, ...schemas }) => [onChainListingId as Hex, schemas]),
  );
}
