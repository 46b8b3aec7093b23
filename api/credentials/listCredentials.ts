import { type SQL, sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { agents } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";

export const CREDENTIAL_STATUSES = ["active", "expired", "low_balance", "revoked"] as const;
export type CredentialStatus = (typeof CREDENTIAL_STATUSES)[number];

export type CredentialRow = {
  onChainListingId: Hex;
  listingTitle: string;
  rentalModel: "one_time" | "subscription" | "per_query";
  status: CredentialStatus;
  purchasedAt: bigint;
  expiresAt: bigint | null;
};

const { credential, listing } = projections;

/**
 * The wallet's credentials on published listings with their status as of `nowSeconds`, one query
 * with the total. Revoked credentials and those of closed listings report `revoked`.
 */
export async function listCredentials(
  db: Database,
  options: {
    wallet: Address;
    status?: CredentialStatus;
    limit: number;
    offset: number;
    nowSeconds: number;
  },
): Promise<{ rows: CredentialRow[]; total: number }> {
  const status = sql`case
    when ${credential.isRevoked} or ${listing.status} = 'closed' then 'revoked'
    when ${credential.rentalModel} = 'subscription' and ${credential.expiresAt} <= ${options.nowSeconds} then 'expired'
    when ${credential.rentalModel} = 'per_query' and ${credential.balance} < ${listing.price} then 'low_balance'
    else 'active' end`;
  const conditions: SQL[] = [sql`${credential.buyer} = ${options.wallet.toLowerCase()}`];
  const rows = await db.execute<Record<string, unknown>>(sql`
    with mine as (
      select ${credential.listingId} as on_chain_listing_id, ${agents.title} as listing_title,
        ${credential.rentalModel}::text as rental_model, ${status} as status,
        ${credential.purchasedAt} as purchased_at, ${credential.expiresAt} as expires_at
      from ${credential}
      join ${listing} on ${listing.id} = ${credential.listingId}
      join ${agents} on ${agents.onChainListingId} = ${credential.listingId}
      where ${sql.join(conditions, sql` and `)}
    ), filtered as (
      select * from mine ${options.status ? sql`where status = ${options.status}` : sql``}
    )
    select totals.total, page.*
    from (select count(*)::int as total from filtered) as totals
    left join lateral (
      select * from filtered order by purchased_at desc, on_chain_listing_id asc
      limit ${options.limit} offset ${options.offset}
    ) as page on true`);

  return {
    total: Number(rows[0]?.total ?? 0),
    rows: rows
      .filter((row) => row.on_chain_listing_id !== null)
      .map((row) => ({
        onChainListingId: row.on_chain_listing_id as Hex,
        listingTitle: row.listing_title as string,
        rentalModel: row.rental_model as CredentialRow["rentalModel"],
        status: row.status as CredentialStatus,
        purchasedAt: BigInt(row.purchased_at as string),
        expiresAt: row.expires_at === null ? null : BigInt(row.expires_at as string),
      })),
  };
}
