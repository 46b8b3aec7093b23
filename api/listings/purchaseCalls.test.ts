import { describe, expect, it } from "vitest";
import { purchaseCalls } from "./purchaseCalls.ts";

const marketplace = { chainId: 31337, address: `0x${"ab".repeat(20)}` as const };
const id = `0x${"12".repeat(32)}` as const;
const price = 3_000_000_000_000_000n;

describe("purchaseCalls", () => {
  it("one-time: purchaseOneTime with the price, nothing to extend", () => {
    expect(purchaseCalls({ onChainId: id, rentalModel: "one_time", price }, marketplace)).toEqual({
      chain_id: 31337,
      contract_address: marketplace.address,
      rental_model: "one_time",
      options: [{ function_name: "purchaseOneTime", args: [id], value: price.toString() }],
      extend_options: [],
    });
  });

  it("subscription: each length at the contract's quote, price × duration / 30 days, to buy and to renew", () => {
    const calls = purchaseCalls({ onChainId: id, rentalModel: "subscription", price }, marketplace);
    const quotes = [
      ["2592000", price],
      ["7776000", price * 3n],
      ["31536000", (price * 31_536_000n) / 2_592_000n],
    ];
    expect(calls.options.map((call) => [call.args[1], BigInt(call.value)])).toEqual(quotes);
    expect(calls.options.every((call) => call.function_name === "purchaseSubscription")).toBe(true);
    expect(calls.extend_options.map((call) => call.function_name)).toEqual(
      Array(3).fill("renewSubscription"),
    );
  });

  it("per task: deposits for 1, 10 and 100 runs, agreeing to at most today's price", () => {
    const calls = purchaseCalls({ onChainId: id, rentalModel: "per_query", price }, marketplace);
    expect(calls.options).toEqual(
      [1, 10, 100].map((runs) => ({
        function_name: "purchasePerQuery",
        args: [id, price.toString()],
        value: (price * BigInt(runs)).toString(),
        runs,
      })),
    );
    expect(calls.extend_options[0]).toMatchObject({ function_name: "topUpBalance", runs: 1 });
  });
});
