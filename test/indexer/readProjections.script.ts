// Reads the projections as the API process will: drizzle over the views schema, from a process of
// its own. Prints the result as JSON (amounts as decimal strings).
// Usage: node test/indexer/readProjections.script.ts <databaseUrl> [viewsSchema]
import { asc, count, desc, eq } from "drizzle-orm";
import { connectProjections, projections } from "../../lib/db/projections.ts";

const [databaseUrl, viewsSchema] = process.argv.slice(2);
if (!databaseUrl) throw new Error("usage: readProjections.script.ts <databaseUrl> [viewsSchema]");

const { listing, credential } = projections;
const { db, close } = connectProjections(databaseUrl, viewsSchema);
try {
  const activeListings = await db
    .select({ id: listing.id, rentalModel: listing.rentalModel, price: listing.price })
    .from(listing)
    .where(eq(listing.status, "active"))
    .orderBy(desc(listing.price));
  const rentersPerListing = await db
    .select({ id: listing.id, renters: count(credential.buyer) })
    .from(listing)
    .leftJoin(credential, eq(credential.listingId, listing.id))
    .groupBy(listing.id)
    .orderBy(asc(listing.id));
  const json = JSON.stringify({ activeListings, rentersPerListing }, (_key, value) =>
    typeof value === "bigint" ? value.toString() : value,
  );
  process.stdout.write(`${json}\n`);
} finally {
  await close();
}
