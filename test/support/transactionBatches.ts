// Many transactions to a block on anvil. A block per transaction makes Ponder fetch every block on its
// own, and its JSON-RPC rate limit (20 requests a second at first) lets it follow only a few a second.
import type { Hex } from "viem";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import type { Stack } from "../../devStack/startStack.ts";

export type TransactionBatches = Awaited<ReturnType<typeof batchTransactions>>;

/**
 * Turns automine off. `send` leaves each transaction in anvil's pending block, which anvil estimates
 * gas and nonces (and answers `pending` reads) against and mines in the order sent; every `perBlock`
 * sends (or at `mine()`) the block is mined, and each of its transactions must have succeeded.
 * `end()` mines what is left and turns automine back on.
 */
export async function batchTransactions(stack: Stack, { perBlock }: { perBlock: number }) {
  const rpc = (method: string, params: unknown[] = []) =>
    rpcRequest(stack.anvil.rpcUrl, method, params);
  const client = stack.marketplace.publicClient;
  let pending: Hex[] = [];

  /**
   * Mines the pending transactions, if any, into one block (at `timestamp`, Unix seconds, if given);
   * returns the latest block's number.
   */
  async function mine({ timestamp }: { timestamp?: bigint } = {}): Promise<bigint> {
    if (pending.length === 0) return client.getBlockNumber();
    await rpc("evm_mine", timestamp === undefined ? [] : [{ timestamp: Number(timestamp) }]);
    const hashes = pending;
    pending = [];
    const head = await client.getBlockNumber();
    const receipts = await Promise.all(
      hashes.map((hash) => client.getTransactionReceipt({ hash })),
    );
    for (const receipt of receipts) {
      if (receipt.status !== "success" || receipt.blockNumber !== head) {
        throw new Error(`transaction ${receipt.transactionHash} failed or missed block ${head}`);
      }
    }
    return head;
  }

  async function send(transaction: Promise<Hex>): Promise<void> {
    pending.push(await transaction);
    if (pending.length >= perBlock) await mine();
  }

  async function end(): Promise<bigint> {
    const head = await mine();
    await rpc("evm_setAutomine", [true]);
    return head;
  }

  await rpc("evm_setAutomine", [false]);
  return { send, mine, end };
}
