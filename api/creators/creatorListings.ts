import { sql } from "drizzle-orm";
import type { Address } from "viem";
import { agents } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import type { CatalogueCache } from "../listings/catalogueCache.ts";

const { listing, purchaseEvent, renewalEvent, topUpEvent } = projections;

/**
 * `GET /v1/creators/me/listings`'s body, as JSON text: every listing `creator` made, in any status,
 * the last published first, with the books the indexer keeps for it. Loads are shared like the
 * catalogue's answers, so the streams of one wallet read once per change.
 */
export function creatorListingsBody(
  { db, catalogue }: { db: Database; catalogue: CatalogueCache },
  creator: Address,
): Promise<string> {
  const wallet = creator.toLowerCase();
  return catalogue.answer(`creator-listings:${wallet}`, async () => {
    const rows = await readCreatorListings(db, wallet);
    return JSON.stringify({ listings: rows.map(creatorListing) });
  });
}

/** Purchases count first purchases, renewals and top-ups, as the contract's events do. */
function readCreatorListings(db: Database, wallet: string) {
  const countOf = (table: typeof purchaseEvent | typeof renewalEvent | typeof topUpEvent) =>
    sql`(select count(*) from ${table} where ${table.listingId} = ${listing.id})`;
  return db.execute<Record<string, unknown>>(sql`
    select ${listing.id} as on_chain_id, ${agents.title} as title, ${listing.status}::text as status,
      ${listing.rentalModel}::text as rental_model, ${listing.price}::text as price,
      ${listing.escrow}::text as escrow, ${listing.totalEarned}::text as earned,
      ${listing.totalWithdrawn}::text as withdrawn, ${listing.runCount} as run_count,
      ${listing.failedRunCount} as failed_run_count,
      (${countOf(purchaseEvent)} + ${countOf(renewalEvent)} + ${countOf(topUpEvent)})::int as purchases
    from ${listing} left join ${agents} on ${agents.onChainListingId} = ${listing.id}
    where ${listing.creator} = ${wallet}
    order by ${listing.publishedAt} desc, ${listing.id} asc`);
}

function creatorListing(row: Record<string, unknown>) {
  const runCount = Number(row.run_count);
  const failed = Number(row.failed_run_count);
  return {
    id: toApiListingId(row.on_chain_id as `0x${string}`),
    on_chain_id: row.on_chain_id,
    /** Null for a listing whose agent this API never registered. */
    title: (row.title as string | null) ?? null,
    status: row.status,
    rental_model: row.rental_model,
    price_wei: row.price,
    purchases: Number(row.purchases),
    escrow_wei: row.escrow,
    earned_wei: row.earned,
    withdrawn_wei: row.withdrawn,
    run_count: runCount,
    success_rate: runCount === 0 ? 0 : (runCount - failed) / runCount,
  };
}
