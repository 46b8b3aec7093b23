// Several transactions mined into one block: one block for the indexer to follow, where sending them
// one by one would mine (and index) a block each.
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import type { MarketplaceConnection } from "../../devStack/marketplace.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { batchTransactions } from "./transactionBatches.ts";

type Marketplace = ReturnType<MarketplaceConnection["as"]>;

export type Transaction = {
  from: HDAccount;
  send: (marketplace: Marketplace) => Promise<Hex>;
};

/** A marketplace call by `from`, for `mineBlock`. */
export function transaction(from: HDAccount, send: Transaction["send"]): Transaction {
  return { from, send };
}

export type MinedBlock = { number: bigint; timestamp: bigint };

/**
 * Mines `transactions` into the next block in the order given, asserts that every one succeeded
 * there, and returns the block. `timestamp` (Unix seconds) sets the block's time.
 */
export async function mineBlock(
  stack: Stack,
  transactions: Transaction[],
  { timestamp }: { timestamp?: bigint } = {},
): Promise<MinedBlock> {
  const batch = await batchTransactions(stack, { perBlock: Number.POSITIVE_INFINITY });
  try {
    for (const one of transactions) await batch.send(one.send(stack.marketplace.as(one.from)));
    await batch.mine({ timestamp });
  } finally {
    await batch.end();
  }
  const block = await stack.marketplace.publicClient.getBlock({ blockTag: "latest" });
  return { number: block.number, timestamp: block.timestamp };
}

/** `mineBlock`, then waits until the projections include that block. */
export async function mineIndexedBlock(
  stack: Stack,
  transactions: Transaction[],
  options: { timestamp?: bigint } = {},
): Promise<MinedBlock> {
  const block = await mineBlock(stack, transactions, options);
  await stack.ponder.waitForBlock(block.number);
  return block;
}
