import { sql } from "drizzle-orm";
import { agents } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import { enqueueWebhook } from "../../lib/webhooks/enqueueWebhook.ts";
import { EXPIRING_NOTICE_SECONDS } from "../../lib/webhooks/webhookEvents.ts";
import { type CredentialRow, credentialData } from "./credentialData.ts";
import { followFeed } from "./followFeed.ts";

const { credential, listing } = projections;
/** Subscriptions announced per step, soonest expiry first; the next step takes the rest. */
const BATCH = 500;

type ExpiringRow = CredentialRow & { buyer: string };

/**
 * `credential.expiring` for the renter of each subscription that will expire within
 * `EXPIRING_NOTICE_SECONDS` of the chain's time `nowSeconds`, once per expiry: the follower's
 * position is the expiry time announced up to, so each step looks only at what time has brought
 * into the notice window since. A renewal moves the expiry later, to be announced when its turn
 * comes; a subscription already in the window when first started is announced at once.
 */
export function followExpiring(db: Database, nowSeconds: bigint): Promise<number> {
  return followFeed(db, "expiring", sql`${nowSeconds.toString()}`, async (tx, position) => {
    const from = BigInt(position) > nowSeconds ? BigInt(position) : nowSeconds;
    const until = nowSeconds + BigInt(EXPIRING_NOTICE_SECONDS);
    if (until <= from) return { position, enqueued: 0 };
    const rows = await tx.execute<ExpiringRow>(sql`
      select c.listing_id, c.buyer, c.rental_model::text, l.status::text as listing_status,
        c.is_revoked, c.expires_at::text, c.balance::text, l.price::text as price,
        c.agreed_price::text, c.exit_reclaimable_at::text, c.purchased_at::text, a.title
      from ${credential} c
      join ${listing} l on l.id = c.listing_id
      left join ${agents} a on a.on_chain_listing_id = c.listing_id
      where c.rental_model = 'subscription' and not c.is_revoked and l.status <> 'closed'
        and c.expires_at > ${from.toString()}::numeric and c.expires_at <= ${until.toString()}::numeric
      order by c.expires_at
      limit ${BATCH}`);
    let enqueued = 0;
    for (const row of rows) {
      enqueued += await enqueueWebhook(tx, {
        wallet: row.buyer,
        type: "credential.expiring",
        eventKey: `expiring:${row.listing_id}:${row.buyer}:${row.expires_at}`,
        data: credentialData(row, nowSeconds),
      });
    }
    // A full batch stops at its last expiry: the same second's others are seen again, not missed.
    const reached = rows.length === BATCH ? BigInt(rows.at(-1)?.expires_at ?? from) - 1n : until;
    return { position: reached.toString(), enqueued };
  });
}
