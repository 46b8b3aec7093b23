// The API's size and time limits, in one place.

const KB = 1024;

/** No request body is larger: a manifest may be exactly this large. */
export const MAX_BODY_BYTES = 64 * KB;
/** Sign-in and key-creation bodies: a wallet, a challenge or label, a signature. */
export const MAX_SMALL_BODY_BYTES = 16 * KB;

/** How messages name a limit: in bytes, and in KB. */
export function describeBytes(bytes: number): string {
  return `${bytes} bytes (${bytes / KB} KB)`;
}

/** A client gets this long to send a request's headers: a slow client cannot hold connections. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** …and this long to send the whole request. */
export const REQUEST_TIMEOUT_MS = 30_000;
