import { parseEther } from "viem";
import { z } from "zod/v4";
import { executionLimits } from "../../lib/db/appSchema.ts";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import { CATEGORIES, RENTAL_MODELS } from "../../lib/marketplace/vocabulary.ts";
import { ApiError } from "../http/errors.ts";
import { pageSchema, parseJsonBody, parseQuery, queryDecimal } from "../http/validation.ts";
import { publishedListing, searchCatalogue } from "../listings/catalogueReads.ts";
import { listingDetail } from "../listings/listingResponse.ts";
import { findListing, type ListingFilters, SORTS } from "../listings/searchListings.ts";
import { AUTHENTICATED, LISTING_ID, NAMED_LISTING } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerWallet } from "../process/context.ts";

/** An amount of ETH as a decimal string, at most 18 decimals, converted to wei exactly. */
const ethAmount = z
  .string()
  // `abort`: zod runs a transform even after a failed check, and parseEther throws on "abc".
  .regex(/^\d{1,12}(\.\d{1,18})?$/, {
    message: "must be a non-negative ETH amount with at most 18 decimals",
    abort: true,
  })
  .transform((value) => parseEther(value));

const noNul = (value: string) => !value.includes("\u0000");

export const searchQuery = z
  .object({
    // Postgres refuses NUL in text: let it not become a 500.
    q: z.string().trim().min(1).max(200).refine(noNul, "must not contain NUL").optional(),
    category: z.enum(CATEGORIES).optional(),
    rental_model: z.enum(RENTAL_MODELS).optional(),
    min_price: ethAmount.optional(),
    max_price: ethAmount.optional(),
    min_rating: queryDecimal(0, 5).optional(),
    sort: z.enum(SORTS).default("relevance"),
    ...pageSchema,
  })
  .refine(
    (query) =>
      query.min_price === undefined ||
      query.max_price === undefined ||
      query.min_price <= query.max_price,
    { message: "must not exceed max_price", path: ["min_price"] },
  );

/** A search query as the catalogue's search takes it. */
export function listingFilters(query: z.output<typeof searchQuery>): ListingFilters {
  return {
    q: query.q,
    category: query.category,
    rentalModel: query.rental_model,
    minPriceWei: query.min_price,
    maxPriceWei: query.max_price,
    minRating: query.min_rating,
    sort: query.sort,
    limit: query.limit,
    offset: query.offset,
  };
}

export const listingRoutes = new DescribedRoutes("/v1/listings");

listingRoutes.get(
  "/",
  {
    tag: "Listings",
    summary: "Search listings",
    security: "bearer",
    scope: "read",
    query: searchQuery,
    answer: { status: 200, description: "A page of listings", schema: answers.searchResult },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const query = parseQuery(c, searchQuery);
    const page = await searchCatalogue(c.get("deps"), listingFilters(query));
    return reply.written(c, page);
  },
);

listingRoutes.get(
  "/:id",
  {
    tag: "Listings",
    summary: "Get a listing",
    security: "bearer",
    scope: "read",
    pathParameters: { id: LISTING_ID },
    answer: { status: 200, description: "The listing", schema: answers.listing },
    errors: ["listing_not_found", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const onChainId = parseApiListingId(c.req.param("id"));
    const deps = c.get("deps");
    const row = onChainId && (await publishedListing(deps, onChainId));
    if (!row) throw new ApiError("listing_not_found", "No published listing has this id");
    const { chainId, marketplace } = deps.chain;
    return reply(c, listingDetail(row, { chainId, address: marketplace }));
  },
);

export const executionLimitBody = z.strictObject({
  requests_per_minute: z
    .number()
    .int()
    .min(1)
    .describe("At most the service's ceiling, MAX_EXECUTION_RATE_PER_MINUTE (600 by default)"),
});

/** The listing's execution rate limit per credential, set by its creator alone. */
listingRoutes.put(
  "/:id/execution-limit",
  {
    tag: "Listings",
    summary: "Set a listing's execution rate limit (its creator only)",
    security: "bearer",
    scope: "create",
    pathParameters: { id: LISTING_ID },
    body: executionLimitBody,
    answer: { status: 200, description: "The limit set", schema: answers.executionLimit },
    errors: ["invalid_request", ...NAMED_LISTING, ...AUTHENTICATED],
  },
  async (c, reply) => {
    const listingId = c.req.param("id");
    const onChainId = parseApiListingId(listingId);
    if (!onChainId) throw new ApiError("invalid_listing_id", "Listing ids look like lst_<64 hex>");
    const { db } = c.get("deps");
    const row = await findListing(db, onChainId);
    if (!row) throw new ApiError("listing_not_found", "No published listing has this id");
    if (row.creator.toLowerCase() !== callerWallet(c).toLowerCase()) {
      throw new ApiError("forbidden", "Only the listing's creator may set its execution limit");
    }
    const { requests_per_minute } = await parseJsonBody(c, executionLimitBody);
    // A ceiling, so that a creator renting its own listing cannot run it (and fill app.runs) unbounded.
    const ceiling = c.get("deps").settings.maxExecutionRatePerMinute;
    if (requests_per_minute > ceiling) {
      throw new ApiError("invalid_request", `requests_per_minute: must be at most ${ceiling}`);
    }
    await db
      .insert(executionLimits)
      .values({ onChainListingId: onChainId, requestsPerMinute: requests_per_minute })
      .onConflictDoUpdate({
        target: executionLimits.onChainListingId,
        set: { requestsPerMinute: requests_per_minute, updatedAt: new Date() },
      });
    // This process's next executions count under the new limit without waiting for the notice.
    c.get("deps").catalogue.changed();
    return reply(c, { listing_id: listingId, requests_per_minute });
  },
);
