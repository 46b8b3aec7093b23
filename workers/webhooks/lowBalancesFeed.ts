import { sql } from "drizzle-orm";
import { agents } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { nextDebit } from "../../lib/marketplace/credentialStatus.ts";
import { enqueueWebhook } from "../../lib/webhooks/enqueueWebhook.ts";
import { type CredentialRow, credentialData } from "./credentialData.ts";
import { followFeed } from "./followFeed.ts";
import { FEED_BATCH } from "./purchasesFeed.ts";

const { debitEvent, credential, listing } = projections;

type DebitRow = CredentialRow & {
  id: string;
  buyer: string;
  run_id: string;
  debited: string;
  timestamp: string;
};

/**
 * `credential.low_balance` for the renter whose per-task balance a debit took below the price of
 * its next run: once per crossing, since only the debit that crosses sees the balance before it
 * cover a run and the balance after it not; a top-up above the price and a later crossing announce
 * it again. Debits are followed in the order of Ponder's event ids, from the newest when first
 * started.
 */
export function followLowBalances(db: Database): Promise<number> {
  return followFeed(
    db,
    "low_balances",
    sql`coalesce((select max(${debitEvent.id}) from ${debitEvent}), '')`,
    async (tx, position) => {
      const rows = await tx.execute<DebitRow>(sql`
        select d.id, d.listing_id, d.buyer, d.run_id::text, d.price::text as debited,
          d.balance::text as balance, d.timestamp::text, c.rental_model::text,
          l.status::text as listing_status, c.is_revoked, c.expires_at::text, l.price::text as price,
          c.agreed_price::text, c.exit_reclaimable_at::text, c.purchased_at::text, a.title
        from ${debitEvent} d
        join ${credential} c on c.listing_id = d.listing_id and c.buyer = d.buyer
        join ${listing} l on l.id = d.listing_id
        left join ${agents} a on a.on_chain_listing_id = d.listing_id
        where d.id > ${position}
        order by d.id
        limit ${FEED_BATCH}`);
      let enqueued = 0;
      for (const row of rows) {
        const price = nextDebit({
          price: BigInt(row.price),
          agreedPrice: BigInt(row.agreed_price),
        });
        const after = BigInt(row.balance);
        const crossed = after < price && after + BigInt(row.debited) >= price;
        const data = credentialData(row, BigInt(row.timestamp));
        if (!crossed || data.status !== "low_balance") continue;
        enqueued += await enqueueWebhook(tx, {
          wallet: row.buyer,
          type: "credential.low_balance",
          eventKey: `low_balance:${row.listing_id}:${row.buyer}:${row.run_id}`,
          data,
        });
      }
      return { position: rows.at(-1)?.id ?? position, enqueued };
    },
  );
}
