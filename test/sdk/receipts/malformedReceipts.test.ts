// A document that is not a receipt document is an answer, never a throw: every wrong part named, and
// the chain not even asked when nothing is left to check there. Only a chain that cannot be read throws.
import { describe, expect, it } from "vitest";
import { ChainReadError } from "../../../sdk/src/receipts/marketplaceReads.ts";
import { receiptLeaf } from "../../../sdk/src/receipts/receiptLeaf.ts";
import type { ReceiptDocument } from "../../../sdk/src/receipts/receiptTypes.ts";
import { verifyReceipt } from "../../../sdk/src/receipts/verifyReceipt.ts";
import { sampleReceipt } from "./sampleReceipt.ts";

/** Nothing listens there: asking it fails at once. */
const NO_NODE = { rpcUrl: "http://127.0.0.1:1" };

function wellFormed(): ReceiptDocument {
  const receipt = sampleReceipt();
  return {
    receipt,
    signature: `0x${"11".repeat(65)}`,
    signer: "0x0000000000000000000000000000000000000001",
    chain_id: 31337,
    contract: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    leaf: receiptLeaf(receipt),
    anchor: null,
  };
}

const invalid = (problems: unknown) => ({
  valid: false,
  signature: false,
  inclusion: false,
  anchored: false,
  problems,
});

describe("verifyReceipt of a malformed document", () => {
  it.each([
    ["not an object", "receipt", ["the document is not a JSON object"]],
    ["null", null, ["the document is not a JSON object"]],
    ["an array", [], ["the document is not a JSON object"]],
  ])("names %s", async (_what, document, problems) => {
    expect(await verifyReceipt(document, NO_NODE)).toEqual(invalid(problems));
  });

  it("names every missing part", async () => {
    const { problems } = await verifyReceipt({}, NO_NODE);
    expect(problems).toEqual([
      "receipt is not a JSON object",
      "signature is not a 0x hex signature",
      "chain_id is not a chain id",
      "contract is not a 0x address",
      "leaf is not 0x and 32 bytes of hex",
      "anchor is neither null nor { root, proof, transaction, block }",
    ]);
  });

  it.each([
    ["cost_wei", 12, "receipt.cost_wei is not a decimal string of wei"],
    ["cost_wei", "0x10", "receipt.cost_wei is not a decimal string of wei"],
    ["cost_wei", (2n ** 256n).toString(), "receipt.cost_wei is not a decimal string of wei"],
    ["output_sha256", "0x1234", "receipt.output_sha256 is not 0x and 32 bytes of hex"],
    ["renter", "0xnot-an-address", "receipt.renter is not a 0x address"],
    ["input_tokens", -1, "receipt.input_tokens is not a non-negative integer or null"],
    ["input_tokens", 1.5, "receipt.input_tokens is not a non-negative integer or null"],
    ["finished_at_ms", null, "receipt.finished_at_ms is not unix milliseconds"],
    ["status", "running", 'receipt.status is not "completed" or "failed"'],
    ["run_id", undefined, "receipt.run_id is not a string"],
    ["extra", "unsigned", "receipt.extra is no receipt field: it is not signed"],
  ])("names a receipt whose %s is %o", async (field, value, problem) => {
    const document = wellFormed();
    const receipt = { ...document.receipt, [field]: value };
    const result = await verifyReceipt({ ...document, receipt }, NO_NODE);
    expect(result).toEqual(invalid([problem, expect.stringMatching(/^not anchored yet/)]));
  });

  it("names a malformed anchor, signature or leaf, and asks nothing of a chain it has no use for", async () => {
    const document = {
      ...wellFormed(),
      signature: "0xnope",
      leaf: 42,
      anchor: { root: "0x00", proof: "none" },
    };
    expect(await verifyReceipt(document, NO_NODE)).toEqual(
      invalid([
        "signature is not a 0x hex signature",
        "leaf is not 0x and 32 bytes of hex",
        "anchor is neither null nor { root, proof, transaction, block }",
      ]),
    );
  });
});

describe("verifyReceipt when the chain cannot be read", () => {
  it("throws a ChainReadError: it says nothing about the receipt", async () => {
    await expect(verifyReceipt(wellFormed(), NO_NODE)).rejects.toBeInstanceOf(ChainReadError);
  });

  it("refuses a contract option that is no address", async () => {
    await expect(
      verifyReceipt(wellFormed(), { ...NO_NODE, contract: "0x12" }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});
