// A receipt's leaf is the EIP-712 struct hash of docs/receipts.md's `Receipt`, field for field, and
// its signature recovers to the key that signed it under the marketplace's domain, and only there.
import {
  type Address,
  concat,
  encodeAbiParameters,
  hashTypedData,
  keccak256,
  recoverTypedDataAddress,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { receiptLeaf } from "../../../sdk/src/receipts/receiptLeaf.ts";
import {
  RECEIPT_TYPES,
  type Receipt,
  receiptDomain,
  receiptMessage,
} from "../../../sdk/src/receipts/receiptTypes.ts";
import { sampleReceipt } from "./sampleReceipt.ts";

const MARKETPLACE: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const TYPE =
  "Receipt(string runId,bytes32 listingId,address renter,string manifestCid,string vendor,string model," +
  "bytes32 endpointSha256,bytes32 taskSha256,bytes32 inputSha256,bytes32 outputSha256,uint64 inputTokens," +
  "uint64 outputTokens,uint64 startedAtMs,uint64 finishedAtMs,string status,uint256 costWei)";

/** EIP-712's `hashStruct`, by hand: keccak256(typeHash ‖ encodeData), strings as their keccak256. */
function structHashByHand(receipt: Receipt) {
  const text = (value: string) => keccak256(toHex(value));
  return keccak256(
    encodeAbiParameters(
      [
        "bytes32",
        "bytes32",
        "bytes32",
        "address",
        "bytes32",
        "bytes32",
        "bytes32",
        "bytes32",
        "bytes32",
        "bytes32",
        "bytes32",
        "uint64",
        "uint64",
        "uint64",
        "uint64",
        "bytes32",
        "uint256",
      ].map((type) => ({ type })),
      [
        keccak256(toHex(TYPE)),
        text(receipt.run_id),
        receipt.listing_id,
        receipt.renter,
        text(receipt.manifest_cid),
        text(receipt.vendor),
        text(receipt.model),
        receipt.endpoint_sha256,
        receipt.task_sha256,
        receipt.input_sha256,
        receipt.output_sha256,
        BigInt(receipt.input_tokens ?? 0),
        BigInt(receipt.output_tokens ?? 0),
        BigInt(receipt.started_at_ms ?? 0),
        BigInt(receipt.finished_at_ms),
        text(receipt.status),
        BigInt(receipt.cost_wei),
      ],
    ),
  );
}

const typedData = (receipt: Receipt, chainId = 31337, contract = MARKETPLACE) =>
  ({
    domain: receiptDomain(chainId, contract),
    types: RECEIPT_TYPES,
    primaryType: "Receipt",
    message: receiptMessage(receipt),
  }) as const;

describe("receiptLeaf", () => {
  it("is the struct hash of the Receipt type, its fields in the documented order", () => {
    const receipt = sampleReceipt();
    expect(receiptLeaf(receipt)).toBe(structHashByHand(receipt));
  });

  it("is what the typed-data digest signs: keccak256(0x1901 ‖ domain separator ‖ leaf)", () => {
    const receipt = sampleReceipt();
    const separator = keccak256(
      encodeAbiParameters(
        ["bytes32", "bytes32", "bytes32", "uint256", "address"].map((type) => ({ type })),
        [
          keccak256(
            toHex(
              "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
            ),
          ),
          keccak256(toHex("ServiceMarketplace Receipts")),
          keccak256(toHex("1")),
          31337n,
          MARKETPLACE,
        ],
      ),
    );
    expect(hashTypedData(typedData(receipt))).toBe(
      keccak256(concat(["0x1901", separator, receiptLeaf(receipt)])),
    );
  });

  it("changes with every field", () => {
    const receipt = sampleReceipt();
    const changed: Receipt[] = [
      { ...receipt, run_id: "run_2" },
      { ...receipt, listing_id: sampleReceipt(2).listing_id },
      { ...receipt, renter: sampleReceipt(2).renter },
      { ...receipt, manifest_cid: "bafy-other" },
      { ...receipt, vendor: "openai" },
      { ...receipt, model: "" },
      { ...receipt, endpoint_sha256: sampleReceipt(2).endpoint_sha256 },
      { ...receipt, task_sha256: sampleReceipt(2).task_sha256 },
      { ...receipt, input_sha256: sampleReceipt(2).input_sha256 },
      { ...receipt, output_sha256: sampleReceipt(2).output_sha256 },
      { ...receipt, input_tokens: 1 },
      { ...receipt, output_tokens: 1 },
      { ...receipt, started_at_ms: 1 },
      { ...receipt, finished_at_ms: 1 },
      { ...receipt, status: "failed" },
      { ...receipt, cost_wei: "1" },
    ];
    const leaves = new Set([receipt, ...changed].map(receiptLeaf));
    expect(leaves.size).toBe(changed.length + 1);
  });

  it("reads null counts and start as 0, and hex in any case as the same bytes", () => {
    const receipt = sampleReceipt();
    const unreported = { ...receipt, input_tokens: null, output_tokens: null, started_at_ms: null };
    const zero = { ...receipt, input_tokens: 0, output_tokens: 0, started_at_ms: 0 };
    expect(receiptLeaf(unreported)).toBe(receiptLeaf(zero));
    const upper = (hex: `0x${string}`) => `0x${hex.slice(2).toUpperCase()}` as const;
    expect(
      receiptLeaf({
        ...receipt,
        renter: upper(receipt.renter),
        listing_id: upper(receipt.listing_id),
      }),
    ).toBe(receiptLeaf(receipt));
  });
});

describe("a receipt's signature", () => {
  const receiptsKey = privateKeyToAccount(generatePrivateKey());

  it("recovers to the key that signed it, under the marketplace's domain", async () => {
    const receipt = sampleReceipt();
    const signature = await receiptsKey.signTypedData(typedData(receipt));
    expect(await recoverTypedDataAddress({ ...typedData(receipt), signature })).toBe(
      receiptsKey.address,
    );
  });

  it("recovers to another address for another receipt, chain or contract", async () => {
    const receipt = sampleReceipt();
    const signature = await receiptsKey.signTypedData(typedData(receipt));
    for (const other of [
      typedData({ ...receipt, cost_wei: "1" }),
      typedData(receipt, 1),
      typedData(receipt, 31337, "0x0000000000000000000000000000000000000001"),
    ]) {
      expect(await recoverTypedDataAddress({ ...other, signature })).not.toBe(receiptsKey.address);
    }
  });
});
