// Several transactions sent at once and mined into one block: one block for the indexer to follow,
// where sending them one by one would wait for each and mine (and index) a block each.
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import type { MarketplaceConnection } from "../../devStack/marketplace.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import type { Stack } from "../../devStack/startStack.ts";

type Marketplace = ReturnType<MarketplaceConnection["as"]>;

/** Enough for any one marketplace call; fixed, since estimates cannot see the block being built. */
const GAS_PER_TRANSACTION = 500_000n;

export type Transaction = {
  from: HDAccount;
  send: (marketplace: Marketplace, options: { nonce: number; gas: bigint }) => Promise<Hex>;
};

/** A marketplace call by `from`, for `mineBlock`: `send` passes `options` on to the write. */
export function transaction(from: HDAccount, send: Transaction["send"]): Transaction {
  return { from, send };
}

export type MinedBlock = { number: bigint; timestamp: bigint };

/**
 * Mines `transactions` into the next block, each sender's in the order given, asserts that every
 * one succeeded there, and returns the block. `timestamp` (Unix seconds) sets the block's time.
 */
export async function mineBlock(
  stack: Stack,
  transactions: Transaction[],
  { timestamp }: { timestamp?: bigint } = {},
): Promise<MinedBlock> {
  const client = stack.marketplace.publicClient;
  const rpc = (method: string, params: unknown[] = []) =>
    rpcRequest(stack.anvil.rpcUrl, method, params);
  const senders = [...new Set(transactions.map((one) => one.from))];
  const nonces = new Map(
    await Promise.all(
      senders.map(async (from) => {
        const nonce = await client.getTransactionCount({ address: from.address });
        return [from, nonce] as const;
      }),
    ),
  );
  const nextNonce = (from: HDAccount) => {
    const nonce = nonces.get(from) as number;
    nonces.set(from, nonce + 1);
    return nonce;
  };
  const marketplaces = new Map(senders.map((from) => [from, stack.marketplace.as(from)]));

  let hashes: Hex[];
  await rpc("evm_setAutomine", [false]);
  try {
    // All at once: the nonces keep each sender's in order.
    hashes = await Promise.all(
      transactions.map((one) =>
        one.send(marketplaces.get(one.from) as Marketplace, {
          nonce: nextNonce(one.from),
          gas: GAS_PER_TRANSACTION,
        }),
      ),
    );
    await rpc("evm_mine", timestamp === undefined ? [] : [{ timestamp: Number(timestamp) }]);
  } finally {
    await rpc("evm_setAutomine", [true]);
  }

  const receipts = await Promise.all(hashes.map((hash) => client.getTransactionReceipt({ hash })));
  const block = await client.getBlock({ blockTag: "latest" });
  for (const receipt of receipts) {
    if (receipt.status !== "success" || receipt.blockNumber !== block.number) {
      throw new Error(
        `transaction ${receipt.transactionHash} failed or missed block ${block.number}`,
      );
    }
  }
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
