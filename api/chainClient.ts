import { createPublicClient, http, type PublicClient } from "viem";
import { CHAIN_READ_RETRIES, CHAIN_READ_TIMEOUT_MS } from "./limits.ts";

/**
 * The API's reads of the chain, on a request's path: a node that takes calls and never answers is
 * given up on within `CHAIN_READ_TIMEOUT_MS` per attempt and one retry, so the request is answered
 * 503 in seconds rather than after viem's default of four 10 s attempts.
 */
export function createChainClient(rpcUrl: string): PublicClient {
  return createPublicClient({
    transport: http(rpcUrl, { timeout: CHAIN_READ_TIMEOUT_MS, retryCount: CHAIN_READ_RETRIES }),
  });
}
