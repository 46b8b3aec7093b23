import { sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { agents } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { credentialStatus } from "../../lib/marketplace/credentialStatus.ts";
import type {
  CredentialStatus,
  ListingStatus,
  RentalModel,
} from "../../lib/marketplace/vocabulary.ts";

export type CredentialRow = {
  onChainListingId: Hex;
  listingTitle: string;
  rentalModel: RentalModel;
  status: CredentialStatus;
  purchasedAt: bigint;
  expiresAt: bigint | null;
};

const { credential, listing } = projections;

/**
 * The wallet's credentials on published listings with their status at `nowSeconds` (the chain's
 * time), newest purchase first, and how many there are. Revoked credentials and those of closed
 * listings report `revoked`.
 */
export async function listCredentials(
  db: Database,
  options: {
    wallet: Address;
    status?: CredentialStatus;
    limit: number;
    offset: number;
    nowSeconds: bigint;
  },
): Promise<{ rows: CredentialRow[]; total: number }> {
  const facts = await db.execute<Record<string, unknown>>(sql`
    select ${credential.listingId} as on_chain_listing_id, ${agents.title} as listing_title,
      ${credential.rentalModel}::text as rental_model, ${listing.status}::text as listing_status,
      ${credential.isRevoked} as is_revoked, ${credential.expiresAt} as expires_at,
      ${credential.balance} as balance, ${listing.price} as price,
      ${credential.agreedPrice} as agreed_price,
      ${credential.exitReclaimableAt} as exit_reclaimable_at,
      ${credential.purchasedAt} as purchased_at
    from ${credential}
    join ${listing} on ${listing.id} = ${credential.listingId}
    join ${agents} on ${agents.onChainListingId} = ${credential.listingId}
    where ${credential.buyer} = ${options.wallet.toLowerCase()}
    order by ${credential.purchasedAt} desc, ${credential.listingId} asc`);

  const rows = facts
    .map((row): CredentialRow => {
      const expiresAt = row.expires_at === null ? null : BigInt(row.expires_at as string);
      const status = credentialStatus(
        {
          rentalModel: row.rental_model as RentalModel,
          listingStatus: row.listing_status as ListingStatus,
          isRevoked: row.is_revoked as boolean,
          expiresAt: expiresAt ?? 0n,
          balance: BigInt(row.balance as string),
          price: BigInt(row.price as string),
          agreedPrice: BigInt(row.agreed_price as string),
          exiting: row.exit_reclaimable_at !== null,
        },
        options.nowSeconds,
      );
      return {
        onChainListingId: row.on_chain_listing_id as Hex,
        listingTitle: row.listing_title as string,
        rentalModel: row.rental_model as RentalModel,
        status,
        purchasedAt: BigInt(row.purchased_at as string),
        expiresAt,
      };
    })
    .filter((row) => options.status === undefined || row.status === options.status);
  return {
    rows: rows.slice(options.offset, options.offset + options.limit),
    total: rows.length,
  };
}
