import { type Hex, type PublicClient, TransactionReceiptNotFoundError } from "viem";
import { unavailableChain } from "../chain/unavailableChain.ts";

/**
 * Adds to `inBalance` whether each debit transaction had succeeded by `blockNumber`, so its debits
 * are in a balance read there. Looked up after that read: a transaction not mined now was not mined
 * then. A reverted one debited nothing (its runs will be debited again). A chain that cannot be read
 * is 503 `service_unavailable`.
 */
export async function lookUpDebits(
  client: PublicClient,
  transactions: string[],
  blockNumber: bigint,
  inBalance: Map<string, boolean>,
): Promise<void> {
  await Promise.all(
    transactions.map(async (hash) => {
      const receipt = await client
        .getTransactionReceipt({ hash: hash as Hex })
        .catch((error: unknown) => {
          if (error instanceof TransactionReceiptNotFoundError) return undefined;
          return unavailableChain(error);
        });
      inBalance.set(
        hash,
        receipt !== undefined && receipt.status === "success" && receipt.blockNumber <= blockNumber,
      );
    }),
  );
}
