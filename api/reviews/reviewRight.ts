import { and, eq } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";

/**
 * Whether `wallet` may review the listing: at least one of its runs on it completed, and it is not
 * the listing's creator, whose own runs (it may rent its listing like anyone) prove nothing of it. A
 * run is admitted only once the chain shows the wallet's credential for the listing, so that run is
 * the proof that it holds or held one, there at once; the indexer's copy of the credential may still
 * be a block behind when a renter reviews right after its first run.
 */
export async function mayReview(
  db: Database,
  listing: { onChainListingId: Hex; creator: Hex },
  wallet: Address,
) {
  if (listing.creator.toLowerCase() === wallet.toLowerCase()) return false;
  const [row] = await db
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        eq(runs.onChainListingId, listing.onChainListingId.toLowerCase()),
        eq(runs.wallet, wallet.toLowerCase()),
        eq(runs.status, "completed"),
      ),
    )
    .limit(1);
  return row !== undefined;
}
