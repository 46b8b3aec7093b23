import type { Address, Hex } from "viem";
import {
  type RentalModel,
  SUBSCRIPTION_DURATIONS,
  SUBSCRIPTION_PERIOD,
} from "../../lib/marketplace/vocabulary.ts";

/** The per-task deposits offered, in runs: a wallet may send any multiple of the price. */
export const PER_QUERY_RUNS = [1, 10, 100] as const;

type PurchaseFunction =
  | "purchaseOneTime"
  | "purchaseSubscription"
  | "renewSubscription"
  | "purchasePerQuery"
  | "topUpBalance";

/** One contract call a wallet can send as it is: integers as decimal strings, `value` in wei. */
type PurchaseCall = {
  function_name: PurchaseFunction;
  args: string[];
  value: string;
  /** Subscriptions: the length bought. */
  duration_seconds?: number;
  /** Per-task: the runs the deposit pays for at today's price. */
  runs?: number;
};

/**
 * What a wallet calls to rent a listing under its model, at its current price: to buy, and to renew
 * or top up later. The contract's quote for a subscription is `price * duration / 30 days`.
 */
export function purchaseCalls(
  listing: { onChainId: Hex; rentalModel: RentalModel; price: bigint },
  marketplace: { chainId: number; address: Address },
) {
  const id = listing.onChainId;
  const price = listing.price;
  const calls = (): { buy: PurchaseCall[]; extend: PurchaseCall[] } => {
    switch (listing.rentalModel) {
      case "one_time":
        return {
          buy: [{ function_name: "purchaseOneTime", args: [id], value: price.toString() }],
          extend: [],
        };
      case "subscription": {
        const quoted = (name: PurchaseFunction) =>
          SUBSCRIPTION_DURATIONS.map((duration) => ({
            function_name: name,
            args: [id, String(duration)],
            value: ((price * BigInt(duration)) / BigInt(SUBSCRIPTION_PERIOD)).toString(),
            duration_seconds: duration,
          }));
        return { buy: quoted("purchaseSubscription"), extend: quoted("renewSubscription") };
      }
      case "per_query": {
        // `maxPrice` is today's price: a price raised before the call is mined is refused.
        const deposits = (name: PurchaseFunction) =>
          PER_QUERY_RUNS.map((runs) => ({
            function_name: name,
            args: [id, price.toString()],
            value: (price * BigInt(runs)).toString(),
            runs,
          }));
        return { buy: deposits("purchasePerQuery"), extend: deposits("topUpBalance") };
      }
    }
  };
  const { buy, extend } = calls();
  return {
    chain_id: marketplace.chainId,
    contract_address: marketplace.address,
    rental_model: listing.rentalModel,
    options: buy,
    extend_options: extend,
  };
}
