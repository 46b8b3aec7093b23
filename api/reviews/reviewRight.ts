import { sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { runs } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";

const { credential } = projections;

/**
 * Whether `wallet` may review the listing: it holds or held a credential for it (revoked and
 * expired ones count) and at least one of its runs on it completed.
 */
export async function mayReview(db: Database, onChainListingId: Hex, wallet: Address) {
  const buyer = wallet.toLowerCase();
  const listing = onChainListingId.toLowerCase();
  const [row] = await db.execute<{ allowed: boolean }>(sql`
    select exists (
      select 1 from ${credential}
      where ${credential.listingId} = ${listing} and ${credential.buyer} = ${buyer}
    ) and exists (
      select 1 from ${runs}
      where ${runs.onChainListingId} = ${listing} and ${runs.wallet} = ${buyer}
        and ${runs.status} = 'completed'
    ) as allowed`);
  return row?.allowed === true;
}
