import {
  type Address,
  type Hex,
  isAddressEqual,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";

/** What a mined transaction did to one run's debit: charged at `price`, or skipped for `reason`. */
export type DebitOutcome =
  | { debited: true; price: bigint; block: bigint; tx: Hex }
  | { debited: false; reason: Hex };

/** Every run a receipt debited or refused, by on-chain run id, from the marketplace's own logs. */
export function debitOutcomes(
  receipt: TransactionReceipt,
  marketplace: Address,
): Map<bigint, DebitOutcome> {
  const outcomes = new Map<bigint, DebitOutcome>();
  const logs = parseEventLogs({
    abi: serviceMarketplaceAbi,
    eventName: ["QueryConsumed", "QueryNotConsumed"],
    logs: receipt.logs.filter((log) => isAddressEqual(log.address, marketplace)),
  });
  for (const log of logs) {
    if (log.eventName === "QueryConsumed") {
      outcomes.set(log.args.runId, {
        debited: true,
        price: log.args.price,
        block: log.blockNumber,
        tx: log.transactionHash,
      });
    } else {
      outcomes.set(log.args.runId, { debited: false, reason: log.args.reason });
    }
  }
  return outcomes;
}
