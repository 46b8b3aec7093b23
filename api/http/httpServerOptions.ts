import type { ServerOptions } from "node:http";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "../limits.ts";

/**
 * node:http's limits on slow clients. `requestTimeout` bounds receiving a request, up to its last
 * byte, and nothing after: an execution that answers after a 300 s run, or streams it, is not cut
 * by it (api/serverTimeouts.test.ts).
 */
export function httpServerOptions({
  headersTimeoutMs = HEADERS_TIMEOUT_MS,
  requestTimeoutMs = REQUEST_TIMEOUT_MS,
} = {}): ServerOptions {
  return {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    // How often Node looks for connections past those timeouts (30 s by default).
    connectionsCheckingInterval: 1_000,
  };
}
