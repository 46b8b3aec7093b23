import { sql } from "drizzle-orm";
import type { Hex } from "viem";
import { agents } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { enqueueWebhook } from "../../lib/webhooks/enqueueWebhook.ts";
import { isoFromSeconds } from "./credentialData.ts";
import { followFeed } from "./followFeed.ts";

const { purchaseEvent, listing } = projections;
/** Purchases announced per step; the next step takes the rest at once. */
export const FEED_BATCH = 100;

type PurchaseRow = {
  id: string;
  listing_id: Hex;
  buyer: string;
  amount: string;
  fee: string;
  expires_at: string | null;
  block_number: string;
  timestamp: string;
  transaction_hash: string;
  creator: string;
  price: string;
  rental_model: string;
  status: string;
  title: string | null;
};

/**
 * `listing.purchased` for the creator of each purchase the indexer projected since the last step,
 * in the order Ponder's event ids give (block, then log), from the newest one when first started:
 * history is not announced. A purchase a reorg mines again is the same transaction: announced once.
 */
export function followPurchases(db: Database): Promise<number> {
  return followFeed(
    db,
    "purchases",
    sql`coalesce((select max(${purchaseEvent.id}) from ${purchaseEvent}), '')`,
    async (tx, position) => {
      const rows = await tx.execute<PurchaseRow>(sql`
        select p.id, p.listing_id, p.buyer, p.amount::text, p.fee::text, p.expires_at::text,
          p.block_number::text, p.timestamp::text, p.transaction_hash, l.creator, l.price::text,
          l.rental_model::text, l.status::text, a.title
        from ${purchaseEvent} p
        join ${listing} l on l.id = p.listing_id
        left join ${agents} a on a.on_chain_listing_id = p.listing_id
        where p.id > ${position}
        order by p.id
        limit ${FEED_BATCH}`);
      let enqueued = 0;
      for (const row of rows) {
        enqueued += await enqueueWebhook(tx, {
          wallet: row.creator,
          type: "listing.purchased",
          eventKey: `purchase:${row.transaction_hash}:${row.listing_id}:${row.buyer}`,
          data: {
            id: toApiListingId(row.listing_id),
            title: row.title,
            rental_model: row.rental_model,
            price_wei: row.price,
            status: row.status,
            purchase: {
              buyer: row.buyer,
              amount_wei: row.amount,
              fee_wei: row.fee,
              expires_at: row.expires_at === null ? null : isoFromSeconds(row.expires_at),
              purchased_at: isoFromSeconds(row.timestamp),
              transaction_hash: row.transaction_hash,
              block_number: row.block_number,
            },
          },
        });
      }
      return { position: rows.at(-1)?.id ?? position, enqueued };
    },
  );
}
