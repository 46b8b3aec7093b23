import { BaseError, HttpRequestError, type PublicClient, TimeoutError } from "viem";

// PUSH1 1, PUSH1 0, TSTORE, PUSH1 0, TLOAD, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: returns 1
// where transient storage exists, and fails on an unknown opcode where it does not.
const TRANSIENT_STORAGE_PROBE = "0x600160005d60005c60005260206000f3";

/** Fails clearly unless the chain has transient storage (EIP-1153), which the marketplace uses. */
export async function requireTransientStorage(client: PublicClient): Promise<void> {
  const answer = await client.call({ data: TRANSIENT_STORAGE_PROBE }).catch((error: unknown) => {
    const unreachable =
      error instanceof BaseError &&
      error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError);
    if (unreachable) throw error;
    return undefined;
  });
  if (!answer?.data || BigInt(answer.data) !== 1n) {
    throw new Error(
      "This chain has no transient storage (EIP-1153, the Cancun upgrade), which ServiceMarketplace needs: deploy it to a chain that has.",
    );
  }
}
