import type { Hex, PublicClient } from "viem";

/** How often the receipt is asked for: the mining time is known to within this. */
const POLL_MS = 5;

/**
 * When `hash`'s receipt was first seen (`Date.now()`), asking every few milliseconds: on anvil,
 * which mines each transaction as it arrives, the moment its block was mined.
 */
export async function receiptSeenAt(client: PublicClient, hash: Hex): Promise<number> {
  for (;;) {
    const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
    if (receipt) {
      if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
      return Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
