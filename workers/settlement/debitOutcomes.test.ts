import {
  type Address,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
  type Log,
  type TransactionReceipt,
  toFunctionSelector,
} from "viem";
import { describe, expect, it } from "vitest";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { debitOutcomes } from "./debitOutcomes.ts";
import { refusalName } from "./refusalName.ts";

const MARKETPLACE: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const ELSEWHERE: Address = "0x0000000000000000000000000000000000000bad";
const LISTING: Hex = `0x${"11".repeat(32)}`;
const BUYER: Address = "0x2222222222222222222222222222222222222222";
const TX: Hex = `0x${"33".repeat(32)}`;
const REVOKED = toFunctionSelector("CredentialRevoked(bytes32,address)");

function log(address: Address, topics: Hex[], data: Hex): Log {
  return {
    address,
    topics: topics as [Hex, ...Hex[]],
    data,
    blockNumber: 7n,
    transactionHash: TX,
    blockHash: `0x${"44".repeat(32)}`,
    logIndex: 0,
    transactionIndex: 0,
    removed: false,
  };
}

const consumed = (address: Address, runId: bigint, price: bigint, succeeded = true) =>
  log(
    address,
    encodeEventTopics({
      abi: serviceMarketplaceAbi,
      eventName: "QueryConsumed",
      args: { listingId: LISTING, buyer: BUYER, runId },
    }) as Hex[],
    encodeAbiParameters(
      [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bool" }],
      [price, price / 40n, 0n, succeeded],
    ),
  );

const skipped = (runId: bigint, reason: Hex) =>
  log(
    MARKETPLACE,
    encodeEventTopics({
      abi: serviceMarketplaceAbi,
      eventName: "QueryNotConsumed",
      args: { listingId: LISTING, buyer: BUYER, runId },
    }) as Hex[],
    encodeAbiParameters([{ type: "bytes4" }], [reason]),
  );

const receipt = (logs: Log[]) => ({ logs, blockNumber: 7n }) as unknown as TransactionReceipt;

describe("what a settlement receipt says about each run", () => {
  it("reads each debit's price and each skip's reason by run id, whatever the run's outcome", () => {
    const outcomes = debitOutcomes(
      receipt([
        consumed(MARKETPLACE, 1n, 1000n),
        skipped(2n, REVOKED),
        // A run charged for what it streamed before failing: debited all the same.
        consumed(MARKETPLACE, 3n, 1000n, false),
      ]),
      MARKETPLACE,
    );
    expect(outcomes).toEqual(
      new Map([
        [1n, { debited: true, price: 1000n, block: 7n, tx: TX }],
        [2n, { debited: false, reason: REVOKED }],
        [3n, { debited: true, price: 1000n, block: 7n, tx: TX }],
      ]),
    );
    expect(refusalName(REVOKED)).toBe("CredentialRevoked");
  });

  it("believes only the marketplace's own logs", () => {
    const outcomes = debitOutcomes(receipt([consumed(ELSEWHERE, 1n, 1000n)]), MARKETPLACE);
    expect(outcomes.size).toBe(0);
  });

  it("names an unknown refusal by its selector", () => {
    expect(refusalName("0xdeadbeef")).toBe("0xdeadbeef");
  });
});
