import { ServiceConnectionError } from "./errors.ts";
import { serverSentEvents } from "./serverSentEvents.ts";
import type { CreatorListing } from "./types.ts";

/** The API's answer, wei amounts as decimal strings. */
export type CreatorListingsBody = {
  listings: (Omit<CreatorListing, "price_wei" | "escrow_wei" | "earned_wei" | "withdrawn_wei"> & {
    price_wei: string;
    escrow_wei: string;
    earned_wei: string;
    withdrawn_wei: string;
  })[];
};

/** The creator's listings with wei amounts as bigint. */
export function creatorListingsOf(body: CreatorListingsBody): CreatorListing[] {
  return body.listings.map((listing) => ({
    ...listing,
    price_wei: BigInt(listing.price_wei),
    escrow_wei: BigInt(listing.escrow_wei),
    earned_wei: BigInt(listing.earned_wei),
    withdrawn_wei: BigInt(listing.withdrawn_wei),
  }));
}

/**
 * Each `listings` event of a listings stream, until the signal aborts. An `error` event is thrown as
 * the error it carries; a stream that ends otherwise (the API process stopped) as a
 * `ServiceConnectionError`: either way, open another to follow on.
 */
export async function* listingsStreamEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<CreatorListing[], void, undefined> {
  for await (const { event, data } of serverSentEvents(response, signal)) {
    if (event === "listings") yield creatorListingsOf(JSON.parse(data) as CreatorListingsBody);
  }
  if (!signal?.aborted) throw new ServiceConnectionError("The listings stream ended");
}
