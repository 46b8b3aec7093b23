import type { Listing, PurchaseCall } from "./types.ts";

/**
 * A viem `WalletClient` with its account and chain, or anything that sends contract calls alike. The
 * SDK does not bundle viem: the renter's own client sends the call.
 */
export type PurchaseWallet = {
  account?: { address: string } | undefined;
  chain?: { id: number } | undefined;
  getChainId(): Promise<number>;
  writeContract(parameters: never): Promise<`0x${string}`>;
};

/**
 * What to buy: a subscription's length in days (30, 90 or 365), a per-task deposit in runs, nothing
 * for One-Time. `extend` renews a subscription or tops up a per-task balance already held.
 */
export type RentChoice = (
  | { days: number; runs?: never }
  | { runs: number; days?: never }
  | { days?: never; runs?: never }
) & { extend?: boolean };

export type Rental = {
  /** The transaction's hash: wait for its receipt before running tasks. */
  hash: `0x${string}`;
  /** The contract call sent, as the listing's `purchase` describes it. */
  call: PurchaseCall;
};

const SECONDS_PER_DAY = 86_400;

const listingId = { name: "listingId", type: "bytes32" } as const;
const amount = (name: string) => ({ name, type: "uint256" }) as const;
const payable = (name: PurchaseCall["function_name"], inputs: readonly object[]) =>
  ({ type: "function", name, stateMutability: "payable", inputs, outputs: [] }) as const;
/** The marketplace's purchase functions, as its ABI declares them. */
const PURCHASE_ABI = [
  payable("purchaseOneTime", [listingId]),
  payable("purchaseSubscription", [listingId, amount("duration")]),
  payable("renewSubscription", [listingId, amount("duration")]),
  payable("purchasePerQuery", [listingId, amount("maxPrice")]),
  payable("topUpBalance", [listingId, amount("maxPrice")]),
];

/**
 * Sends the call that rents `listing` as `choice` asks, from the listing's own `purchase` calls, with
 * `wallet`. Refused before anything is sent when the wallet is on another chain than the
 * marketplace's, or when the listing offers no such rental.
 */
export async function rent(
  listing: Listing,
  wallet: PurchaseWallet,
  choice: RentChoice = {},
): Promise<Rental> {
  const { purchase } = listing;
  const call = chosenCall(listing, choice);
  const chainId = await wallet.getChainId();
  if (chainId !== purchase.chain_id) {
    throw new TypeError(
      `The wallet is on chain ${chainId}; the marketplace on ${purchase.chain_id}`,
    );
  }
  const [id, ...amounts] = call.args;
  const hash = await wallet.writeContract({
    address: purchase.contract_address,
    abi: PURCHASE_ABI,
    functionName: call.function_name,
    args: [id, ...amounts.map(BigInt)],
    value: BigInt(call.value),
    account: wallet.account,
    chain: wallet.chain ?? null,
  } as never);
  return { hash, call };
}

function chosenCall(listing: Listing, choice: RentChoice): PurchaseCall {
  const calls = choice.extend ? listing.purchase.extend_options : listing.purchase.options;
  const [first] = calls;
  if (!first || first.args[0] !== listing.on_chain_id) {
    throw new TypeError(`${listing.id} offers no ${choice.extend ? "extension" : "purchase"}`);
  }
  switch (listing.rental_model) {
    case "one_time":
      return first;
    case "subscription": {
      const days = choice.days;
      const call = calls.find((one) => one.duration_seconds === (days ?? 0) * SECONDS_PER_DAY);
      if (call) return call;
      const offered = calls.map((one) => (one.duration_seconds ?? 0) / SECONDS_PER_DAY);
      throw new TypeError(`Subscriptions are sold for ${offered.join(", ")} days, not ${days}`);
    }
    case "per_query": {
      const runs = choice.runs;
      if (runs === undefined || !Number.isSafeInteger(runs) || runs < 1) {
        throw new TypeError(`A per-task deposit is a whole number of runs, not ${runs}`);
      }
      // Any number of runs at the price the calls name, which is also the deposit's `maxPrice`.
      const price = BigInt(first.args[1] ?? "0");
      return { ...first, value: (price * BigInt(runs)).toString(), runs };
    }
  }
}
