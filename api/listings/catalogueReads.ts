import type { Hex } from "viem";
import type { Database } from "../../lib/db/projections.ts";
import type { CatalogueCache } from "./catalogueCache.ts";
import { listingSummary } from "./listingResponse.ts";
import {
  countCreatorListings,
  findListing,
  type ListingFacts,
  type ListingFilters,
  type ListingRow,
  searchListings,
} from "./searchListings.ts";

type Catalogue = { db: Database; catalogue: CatalogueCache };

/** A page of `GET /v1/listings`, its JSON encoded once for every request that shares it. */
export function searchCatalogue({ db, catalogue }: Catalogue, filters: ListingFilters) {
  const key = `search:${JSON.stringify(filters, (_name, value) => (typeof value === "bigint" ? value.toString() : value))}`;
  return catalogue.answer(key, async () => {
    const [{ rows, total }, counts] = await Promise.all([
      searchListings(db, filters),
      creatorCounts({ db, catalogue }),
    ]);
    const page = {
      listings: rows.map((row) => listingSummary(withCount(row, counts))),
      total,
      limit: filters.limit,
      offset: filters.offset,
    };
    return Buffer.from(JSON.stringify(page));
  });
}

/** One published listing in any status, or undefined. */
export function publishedListing(
  { db, catalogue }: Catalogue,
  onChainId: Hex,
): Promise<ListingRow | undefined> {
  return catalogue.answer(`listing:${onChainId.toLowerCase()}`, async () => {
    const [row, counts] = await Promise.all([
      findListing(db, onChainId),
      creatorCounts({ db, catalogue }),
    ]);
    return row && withCount(row, counts);
  });
}

/** Every creator's listing count, counted once for all the answers that need one. */
function creatorCounts({ db, catalogue }: Catalogue) {
  return catalogue.answer("creator-listing-counts", () => countCreatorListings(db));
}

function withCount(row: ListingFacts, counts: Map<string, number>): ListingRow {
  return { ...row, creatorListingCount: counts.get(row.creator.toLowerCase()) ?? 0 };
}
