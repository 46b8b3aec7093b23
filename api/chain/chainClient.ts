import { createPublicClient, http, type PublicClient, TimeoutError, type Transport } from "viem";
import { CHAIN_READ_DEADLINE_MS, CHAIN_READ_RETRIES } from "../limits.ts";

/**
 * The API's reads of the chain, on a request's path: each read, its retry and the wait before it
 * included, is given up on within `CHAIN_READ_DEADLINE_MS`, so a node that takes calls and never
 * answers (or asks for a long `Retry-After`) is a 503 in seconds rather than after viem's default
 * of four 10 s attempts.
 */
export function createChainClient(rpcUrl: string): PublicClient {
  const transport = http(rpcUrl, {
    timeout: CHAIN_READ_DEADLINE_MS,
    retryCount: CHAIN_READ_RETRIES,
  });
  return createPublicClient({
    transport: withinDeadline(transport, rpcUrl, CHAIN_READ_DEADLINE_MS),
  });
}

/** `transport` with each request ended at `deadlineMs` as a viem `TimeoutError`, retries and all. */
function withinDeadline(transport: Transport, url: string, deadlineMs: number): Transport {
  return (config) => {
    const inner = transport(config);
    const request: typeof inner.request = async (args, options) => {
      const deadline = new AbortController();
      const timer = setTimeout(
        () => deadline.abort(new TimeoutError({ body: args, url })),
        deadlineMs,
      );
      const signal = options?.signal
        ? AbortSignal.any([deadline.signal, options.signal])
        : deadline.signal;
      try {
        return await inner.request(args, { ...options, signal });
      } finally {
        clearTimeout(timer);
      }
    };
    return { ...inner, request };
  };
}
