import { type Address, formatEther } from "viem";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { type RawJson, rawJson } from "../http/rawJson.ts";
import { purchaseCalls } from "./purchaseCalls.ts";
import type { ListingRow } from "./searchListings.ts";

const SUMMARY_DESCRIPTION_LENGTH = 280;

/**
 * Wei as a JSON number of ETH written digit for digit (up to 18 decimals): a double would round a
 * price like 0.123456789012345678 ETH. Clients that parse it into a double round it themselves.
 */
export function exactEth(wei: bigint): RawJson {
  return rawJson(formatEther(wei));
}

export function isoFromSeconds(seconds: bigint | number): string {
  return new Date(Number(seconds) * 1000).toISOString();
}

/** The summary fields of GET /v1/listings. */
export function listingSummary(row: ListingRow, { shorten = true } = {}) {
  return {
    id: toApiListingId(row.onChainId),
    title: row.title,
    description: shorten ? shortened(row.description) : row.description,
    category: [row.category],
    rental_model: row.rentalModel,
    price_eth: exactEth(row.price),
    run_count: row.runCount,
    success_rate: row.runCount === 0 ? 0 : (row.runCount - row.failedRunCount) / row.runCount,
    creator: {
      id: row.creator,
      display_name: row.creatorDisplayName,
      listing_count: row.creatorListingCount,
    },
    rating: row.rating,
    review_count: row.reviewCount,
    last_updated: isoFromSeconds(row.updatedAt),
    sample_output: row.sampleOutput,
  };
}

/**
 * GET /v1/listings/:id: the summary fields, the whole description, four more, whether the chain
 * names the version shown, and what a wallet calls on `marketplace` to rent it.
 */
export function listingDetail(row: ListingRow, marketplace: { chainId: number; address: Address }) {
  return {
    ...listingSummary(row, { shorten: false }),
    published_at: isoFromSeconds(row.publishedAt),
    status: row.status,
    on_chain_id: row.onChainId,
    metadata_uri: row.metadataUri,
    ...manifestStatus(row),
    purchase: purchaseCalls(row, marketplace),
  };
}

/**
 * Whether the on-chain `metadata_uri` names the version shown: an `updateListing` to a URI no
 * registered version of the agent has leaves the last version shown, flagged `unrecognized`.
 */
function manifestStatus(row: ListingRow) {
  const current = row.metadataUri === row.shownMetadataUri;
  return {
    manifest_status: current ? ("current" as const) : ("unrecognized" as const),
    shown_metadata_uri: row.shownMetadataUri,
  };
}

function shortened(text: string): string {
  if (text.length <= SUMMARY_DESCRIPTION_LENGTH) return text;
  return `${text.slice(0, SUMMARY_DESCRIPTION_LENGTH - 1).trimEnd()}…`;
}
