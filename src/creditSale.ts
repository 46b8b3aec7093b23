import type { Context } from "ponder:registry";
import { creator, listing, protocol } from "ponder:schema";

/**
 * Books money paid into a listing (a purchase, a renewal, a debited task): the creator's share into
 * escrow and earnings, the fee into the listing's accrued fees and the protocol's total.
 */
export async function creditSale(
  context: Context,
  { listingId, amount, fee }: { listingId: `0x${string}`; amount: bigint; fee: bigint },
) {
  const share = amount - fee;
  const updated = await context.db.update(listing, { id: listingId }).set((row) => ({
    escrow: row.escrow + share,
    accruedFees: row.accruedFees + fee,
    totalEarned: row.totalEarned + share,
  }));
  await context.db
    .update(creator, { id: updated.creator })
    .set((row) => ({ totalEarned: row.totalEarned + share }));
  await context.db
    .update(protocol, { id: context.contracts.ServiceMarketplace.address as `0x${string}` })
    .set((row) => ({ totalFees: row.totalFees + fee }));
}
