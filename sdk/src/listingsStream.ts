import { EventSourceParserStream } from "eventsource-parser/stream";
import { describedError, ServiceConnectionError, serviceError } from "./errors.ts";
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
  if (!response.body) throw new ServiceConnectionError("The stream has no body");
  const requestId = response.headers.get("x-request-id") ?? undefined;
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const cancel = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const next = await reader.read().catch((error: unknown) => {
        if (signal?.aborted) return { done: true as const, value: undefined };
        throw new ServiceConnectionError("The stream broke off", { cause: error });
      });
      if (next.done || signal?.aborted) break;
      const { event, data } = next.value;
      if (event === "error") {
        throw serviceError({ ...describedError(data, 500), requestId }, undefined);
      }
      if (event === "listings") yield creatorListingsOf(JSON.parse(data) as CreatorListingsBody);
    }
    if (!signal?.aborted) throw new ServiceConnectionError("The listings stream ended");
  } finally {
    signal?.removeEventListener("abort", cancel);
    cancel();
  }
}
