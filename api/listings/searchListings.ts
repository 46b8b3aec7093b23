import { type SQL, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { agents, listingRatings } from "../../lib/db/appSchema.ts";
import { type Database, projections } from "../../lib/db/projections.ts";
import type { Category, ListingStatus, RentalModel } from "../../lib/marketplace/vocabulary.ts";

export const SORTS = ["relevance", "rating", "price_asc", "price_desc", "newest"] as const;

export type ListingFilters = {
  q?: string;
  category?: Category;
  rentalModel?: RentalModel;
  minPriceWei?: bigint;
  maxPriceWei?: bigint;
  minRating?: number;
  sort: (typeof SORTS)[number];
  limit: number;
  offset: number;
};

/** A published listing: the indexer's on-chain facts joined with the registered agent. */
export type ListingRow = {
  onChainId: Hex;
  creator: Hex;
  rentalModel: RentalModel;
  price: bigint;
  status: ListingStatus;
  /** The listing's on-chain `metadata_uri`. */
  metadataUri: string;
  /** The `metadata_uri` of the agent's version the catalogue shows: the last the chain named. */
  shownMetadataUri: string;
  publishedAt: bigint;
  updatedAt: bigint;
  runCount: number;
  failedRunCount: number;
  title: string;
  description: string;
  category: string;
  sampleOutput: string[];
  creatorDisplayName: string;
  creatorListingCount: number;
  rating: number;
  reviewCount: number;
};

/** A listing row as one query reads it: all but its creator's listing count. */
export type ListingFacts = Omit<ListingRow, "creatorListingCount">;

const { listing } = projections;

/** From the reviews (`app.listing_ratings`); a listing without any rates 0 with no reviews. */
const RATING = sql`coalesce(${listingRatings.rating}, 0)`;
const REVIEW_COUNT = sql`coalesce(${listingRatings.reviewCount}, 0)`;

const selectedColumns = sql`
  ${listing.id} as on_chain_id, ${listing.creator} as creator,
  ${listing.rentalModel}::text as rental_model, ${listing.price} as price,
  ${listing.status}::text as status, ${listing.metadataUri} as metadata_uri,
  ${listing.publishedAt} as published_at, ${listing.updatedAt} as updated_at,
  ${listing.runCount} as run_count, ${listing.failedRunCount} as failed_run_count,
  ${agents.title} as title, ${agents.description} as description, ${agents.category} as category,
  ${agents.sampleOutput} as sample_output, ${agents.creatorDisplayName} as creator_display_name,
  ${agents.metadataUri} as shown_metadata_uri,
  ${RATING} as rating, ${REVIEW_COUNT} as review_count`;

const published = sql`${listing} join ${agents} on ${agents.onChainListingId} = ${listing.id}
  left join ${listingRatings} on ${listingRatings.onChainListingId} = ${listing.id}`;

/**
 * One query for a page of the catalogue and its total, in one scan: filters, search, sort with the
 * id as the last key (so pages never repeat or skip a listing). `q` matches by full text (title,
 * description, creator name, category), and, when it is plain words, by trigram similarity to the
 * title, creator name and category: relevance puts these near misses after the exact matches.
 * Creators' listing counts are not in it: `countCreatorListings` has them all at once.
 */
export async function searchListings(
  db: Database,
  filters: ListingFilters,
): Promise<{ rows: ListingFacts[]; total: number }> {
  const query = filters.q ? sql`websearch_to_tsquery('english', ${filters.q})` : undefined;
  const exact = query ? sql`${agents.searchDocument} @@ ${query}` : sql`true`;
  // Near misses: `word_similarity` at least pg_trgm's default threshold for `<%`, 0.6, through the
  // trigram index on `search_names` (title, creator name, category).
  const near =
    filters.q && isPlainWords(filters.q) ? sql`${filters.q} <% ${agents.searchNames}` : sql`false`;
  const conditions: SQL[] = [sql`${listing.status} = 'active'`];
  if (query) conditions.push(sql`(${exact} or ${near})`);
  if (filters.category) conditions.push(sql`${agents.category} = ${filters.category}`);
  if (filters.rentalModel)
    conditions.push(sql`${listing.rentalModel}::text = ${filters.rentalModel}`);
  if (filters.minPriceWei !== undefined) {
    conditions.push(sql`${listing.price} >= ${filters.minPriceWei.toString()}::numeric`);
  }
  if (filters.maxPriceWei !== undefined) {
    conditions.push(sql`${listing.price} <= ${filters.maxPriceWei.toString()}::numeric`);
  }
  if (filters.minRating !== undefined) conditions.push(sql`${RATING} >= ${filters.minRating}`);
  const rank = query
    ? sql`case when ${exact} then ts_rank_cd(${agents.searchDocument}, ${query}) else 0 end`
    : sql`0::real`;
  const nearness = query
    ? sql`case when ${exact} then 0 else word_similarity(${filters.q}, ${agents.searchNames}) end`
    : sql`0::real`;
  const where = sql.join(conditions, sql` and `);

  const rows = await db.execute<Record<string, unknown>>(sql`
    select ${selectedColumns}, ${exact} as exact, ${rank} as rank, ${nearness} as nearness,
      count(*) over () as total
    from ${published}
    where ${where}
    order by ${orderBy(filters.sort)}
    limit ${filters.limit} offset ${filters.offset}`);
  if (rows[0] || filters.offset === 0) {
    return { rows: rows.map(toListingFacts), total: Number(rows[0]?.total ?? 0) };
  }
  // A page past the end has no row to carry the total.
  const [count] = await db.execute<{ total: number }>(
    sql`select count(*)::int as total from ${published} where ${where}`,
  );
  return { rows: [], total: Number(count?.total ?? 0) };
}

/** One published listing in any status, or undefined. */
export async function findListing(db: Database, onChainId: Hex) {
  const rows = await db.execute<Record<string, unknown>>(sql`
    select ${selectedColumns} from ${published} where ${listing.id} = ${onChainId.toLowerCase()}`);
  return rows[0] ? toListingFacts(rows[0]) : undefined;
}

/**
 * Every creator's published, active listings, what the catalogue shows of them: counted once for
 * all creators, since the count joins the indexer's statuses with the registered agents.
 */
export async function countCreatorListings(db: Database): Promise<Map<string, number>> {
  const rows = await db.execute<{ creator: string; listings: number }>(sql`
    select ${listing.creator} as creator, count(*)::int as listings
    from ${published} where ${listing.status} = 'active'
    group by ${listing.creator}`);
  return new Map(rows.map((row) => [row.creator.toLowerCase(), Number(row.listings)]));
}

function orderBy(sort: ListingFilters["sort"]): SQL {
  switch (sort) {
    case "relevance":
      return sql`exact desc, rank desc, nearness desc, published_at desc, on_chain_id asc`;
    case "rating":
      return sql`rating desc, review_count desc, published_at desc, on_chain_id asc`;
    case "price_asc":
      return sql`price asc, on_chain_id asc`;
    case "price_desc":
      return sql`price desc, on_chain_id asc`;
    case "newest":
      return sql`published_at desc, on_chain_id asc`;
  }
}

/** Words alone: a query with quotes or exclusions (`"a b"`, `-a`) means exactly what it says. */
function isPlainWords(q: string): boolean {
  return !/["-]/.test(q);
}

function toListingFacts(row: Record<string, unknown>): ListingFacts {
  return {
    onChainId: row.on_chain_id as Hex,
    creator: row.creator as Hex,
    rentalModel: row.rental_model as ListingRow["rentalModel"],
    price: BigInt(row.price as string),
    status: row.status as ListingRow["status"],
    metadataUri: row.metadata_uri as string,
    shownMetadataUri: row.shown_metadata_uri as string,
    publishedAt: BigInt(row.published_at as string),
    updatedAt: BigInt(row.updated_at as string),
    runCount: Number(row.run_count),
    failedRunCount: Number(row.failed_run_count),
    title: row.title as string,
    description: row.description as string,
    category: row.category as string,
    sampleOutput: row.sample_output as string[],
    creatorDisplayName: row.creator_display_name as string,
    rating: Number(row.rating),
    reviewCount: Number(row.review_count),
  };
}
