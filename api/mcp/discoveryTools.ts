import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import { CATEGORIES, RENTAL_MODELS } from "../../lib/marketplace/vocabulary.ts";
import { ApiError } from "../http/errors.ts";
import { parseInput } from "../http/validation.ts";
import { publishedListing, searchCatalogue } from "../listings/catalogueReads.ts";
import { listingDetail } from "../listings/listingResponse.ts";
import { SORTS } from "../listings/searchListings.ts";
import type { ApiDeps } from "../process/context.ts";
import { listingFilters, searchQuery } from "../routes/listings.ts";
import { jsonResult } from "./toolResults.ts";

/** A tool that reads the catalogue: it never runs an agent, so it never spends money. */
type DiscoveryTool = {
  definition: Tool;
  call: (deps: ApiDeps, args: Record<string, unknown>) => Promise<CallToolResult>;
};

const ethAmount = {
  type: ["string", "number"],
  description: "ETH, a decimal with at most 18 decimals",
};

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/** The query parameters of `GET /v1/listings`, as tool arguments. */
const SEARCH_PARAMETERS: Record<string, object> = {
  q: { type: "string", maxLength: 200, description: "Free-text query" },
  category: { type: "string", enum: [...CATEGORIES] },
  rental_model: { type: "string", enum: [...RENTAL_MODELS] },
  min_price: ethAmount,
  max_price: ethAmount,
  min_rating: { type: "number", minimum: 0, maximum: 5 },
  sort: { type: "string", enum: [...SORTS], default: "relevance" },
  limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
  offset: { type: "integer", minimum: 0, default: 0 },
};

const searchListings: DiscoveryTool = {
  definition: {
    name: "search_listings",
    title: "Search the marketplace",
    description:
      "Searches the marketplace's agents for rent, as GET /v1/listings does: " +
      "`{listings, total, limit, offset}`. Reading the catalogue costs nothing; a listing is " +
      "rented on-chain (its detail, from get_listing, says how) and then appears as a tool here.",
    inputSchema: { type: "object", properties: SEARCH_PARAMETERS, additionalProperties: false },
    annotations: READ_ONLY,
  },
  async call(deps, args) {
    const query = parseInput(searchQuery, queryOf(args));
    const page = await searchCatalogue(deps, listingFilters(query));
    return jsonResult(page.toString());
  },
};

const getListing: DiscoveryTool = {
  definition: {
    name: "get_listing",
    title: "Read a listing",
    description:
      "One listing with all its details, as GET /v1/listings/{id} does, including what a wallet " +
      "calls on the marketplace contract to rent it. Costs nothing.",
    inputSchema: {
      type: "object",
      properties: { id: { type: "string", description: "The listing id, lst_ and 64 hex digits" } },
      required: ["id"],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
  },
  async call(deps, args) {
    const onChainId = typeof args.id === "string" ? parseApiListingId(args.id) : undefined;
    const row = onChainId && (await publishedListing(deps, onChainId));
    if (!row) throw new ApiError("listing_not_found", "No published listing has this id");
    const { chainId, marketplace } = deps.chain;
    return jsonResult(JSON.stringify(listingDetail(row, { chainId, address: marketplace })));
  },
};

export const DISCOVERY_TOOLS: ReadonlyMap<string, DiscoveryTool> = new Map(
  [searchListings, getListing].map((tool) => [tool.definition.name, tool]),
);

/**
 * Tool arguments as the query string `GET /v1/listings` parses: strings, numbers written out; as
 * there, names it does not know are ignored.
 */
function queryOf(args: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of Object.keys(SEARCH_PARAMETERS)) {
    const value = args[name];
    if (value === undefined) continue;
    if (typeof value === "string") query[name] = value;
    else if (typeof value === "number" && Number.isFinite(value)) query[name] = String(value);
    else throw new ApiError("invalid_request", `${name}: must be a string or a number`);
  }
  return query;
}
