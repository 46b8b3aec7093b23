// verifyReceipt against a real chain: receipts signed by the receipts key the deployment names, their
// batch's root anchored by the operator with `settle`. Valid as sent; any field changed, another
// signer, a root the chain never anchored, another chain or contract, and it is not. The CLI says the
// same with its exit status.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Address, type Hex, keccak256, toHex } from "viem";
import type { LocalAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { devAccount, LOCAL_ROLES } from "../../../lib/chain/devAccounts.ts";
import { buildMerkleTree } from "../../../sdk/src/receipts/merkleTree.ts";
import { receiptLeaf } from "../../../sdk/src/receipts/receiptLeaf.ts";
import {
  RECEIPT_TYPES,
  type Receipt,
  type ReceiptDocument,
  receiptDomain,
  receiptMessage,
} from "../../../sdk/src/receipts/receiptTypes.ts";
import { verifyReceipt } from "../../../sdk/src/receipts/verifyReceipt.ts";
import { useStack } from "../../support/useStack.ts";
import { sampleReceipt } from "./sampleReceipt.ts";

const root = new URL("../../..", import.meta.url).pathname;
const receiptsKey = devAccount(LOCAL_ROLES.receipts);
const operator = devAccount(LOCAL_ROLES.operator);
const stack = useStack({ chain: true, postgres: false });

async function signed(receipt: Receipt, by: LocalAccount = receiptsKey) {
  const { chainId, address } = stack().deployment;
  return by.signTypedData({
    domain: receiptDomain(chainId, address),
    types: RECEIPT_TYPES,
    primaryType: "Receipt",
    message: receiptMessage(receipt),
  });
}

/** Anchors the batch of `receipts` as settlement does, and answers their receipt documents. */
async function anchorBatch(receipts: Receipt[]): Promise<ReceiptDocument[]> {
  const { marketplace, deployment } = stack();
  const tree = buildMerkleTree(receipts.map(receiptLeaf));
  const transaction = await marketplace.as(operator).write.settle([[], tree.root, []]);
  const { blockNumber } = await marketplace.mined(Promise.resolve(transaction));
  return Promise.all(
    receipts.map(async (receipt) => ({
      receipt,
      signature: await signed(receipt),
      signer: receiptsKey.address,
      chain_id: deployment.chainId,
      contract: deployment.address,
      leaf: receiptLeaf(receipt),
      anchor: {
        root: tree.root,
        proof: tree.proofOf(receiptLeaf(receipt)),
        transaction,
        block: Number(blockNumber),
      },
    })),
  );
}

const verify = (document: unknown, contract?: Address) =>
  verifyReceipt(document, { rpcUrl: stack().anvil.rpcUrl, contract });
const VALID = { valid: true, signature: true, inclusion: true, anchored: true, problems: [] };
/** `hash` with its last byte changed. */
const altered = (hash: Hex) => `${hash.slice(0, -2)}${hash.endsWith("00") ? "01" : "00"}` as Hex;

let batch: ReceiptDocument[];
beforeAll(async () => {
  batch = await anchorBatch([1, 2, 3, 4, 5].map(sampleReceipt));
});

describe("verifyReceipt on a real chain", () => {
  it("holds every receipt of an anchored batch valid, against the deployment's contract", async () => {
    for (const document of batch) {
      expect(await verify(document, stack().deployment.address)).toEqual(VALID);
    }
    // A one-receipt batch: its leaf is its root, its proof empty.
    const [single] = await anchorBatch([sampleReceipt(6)]);
    expect(single?.anchor?.proof).toEqual([]);
    expect(await verify(single)).toEqual(VALID);
  });

  it.each<[keyof Receipt, unknown]>([
    ["run_id", "run_other"],
    ["listing_id", keccak256(toHex("another listing"))],
    ["renter", "0x0000000000000000000000000000000000000bad"],
    ["manifest_cid", "bafy-forged"],
    ["vendor", "openai"],
    ["model", "gpt-4o"],
    ["endpoint_sha256", keccak256(toHex("elsewhere"))],
    ["task_sha256", keccak256(toHex("another task"))],
    ["input_sha256", keccak256(toHex("another input"))],
    ["output_sha256", keccak256(toHex("another output"))],
    ["input_tokens", 1],
    ["output_tokens", null],
    ["started_at_ms", null],
    ["finished_at_ms", 1],
    ["status", "failed"],
    ["cost_wei", "1"],
  ])("finds a receipt whose %s was changed invalid", async (field, value) => {
    const document = batch[2] as ReceiptDocument;
    const tampered = { ...document, receipt: { ...document.receipt, [field]: value } };
    const result = await verify(tampered);
    expect(result).toMatchObject({ valid: false, signature: false, inclusion: false });
    expect(result.problems).toContainEqual(expect.stringMatching(/^leaf .* is not the receipt's/));
  });

  it("finds a document whose leaf, signature, root, proof or block was changed invalid", async () => {
    const document = batch[1] as ReceiptDocument;
    const anchor = document.anchor as NonNullable<ReceiptDocument["anchor"]>;
    const changed = (part: Partial<ReceiptDocument>) => verify({ ...document, ...part });
    const changedAnchor = (part: Partial<typeof anchor>) =>
      changed({ anchor: { ...anchor, ...part } });

    expect(await changed({ leaf: altered(document.leaf) })).toMatchObject({ valid: false });
    // A byte of r: the last, v, reads 0 as 27.
    const signature =
      `${document.signature.slice(0, 10)}${document.signature[10] === "0" ? "1" : "0"}${document.signature.slice(11)}` as Hex;
    expect(await changed({ signature })).toMatchObject({
      valid: false,
      signature: false,
    });
    expect(await changedAnchor({ root: altered(anchor.root) })).toMatchObject({
      valid: false,
      inclusion: false,
      anchored: false,
    });
    const proof = anchor.proof.map((sibling, i) => (i === 0 ? altered(sibling) : sibling));
    expect(await changedAnchor({ proof })).toMatchObject({ valid: false, inclusion: false });
    expect(await changedAnchor({ block: anchor.block + 1 })).toEqual({
      valid: false,
      signature: true,
      inclusion: true,
      anchored: false,
      problems: [
        `root ${anchor.root} was anchored at block ${anchor.block}, not ${anchor.block + 1}`,
      ],
    });
  });

  it("finds a receipt signed by another key than the contract's receipts signer invalid", async () => {
    const document = batch[0] as ReceiptDocument;
    const impostor = devAccount(3);
    const result = await verify({
      ...document,
      signature: await signed(document.receipt, impostor),
    });
    expect(result).toEqual({
      valid: false,
      signature: false,
      inclusion: true,
      anchored: true,
      problems: [
        `signed by ${impostor.address}, not by the contract's receipts signer ${receiptsKey.address}`,
      ],
    });
  });

  it("finds a root the chain never anchored not anchored, and a receipt of no anchor pending", async () => {
    const receipts = [7, 8, 9].map(sampleReceipt);
    const tree = buildMerkleTree(receipts.map(receiptLeaf));
    const receipt = receipts[0] as Receipt;
    const document = {
      ...(batch[0] as ReceiptDocument),
      receipt,
      signature: await signed(receipt),
      leaf: receiptLeaf(receipt),
    };
    const anchor = { ...(batch[0]?.anchor as NonNullable<ReceiptDocument["anchor"]>) };
    const neverAnchored = await verify({
      ...document,
      anchor: { ...anchor, root: tree.root, proof: tree.proofOf(receiptLeaf(receipt)) },
    });
    expect(neverAnchored).toEqual({
      valid: false,
      signature: true,
      inclusion: true,
      anchored: false,
      problems: [`root ${tree.root} was never anchored on-chain`],
    });
    expect(await verify({ ...document, anchor: null })).toEqual({
      valid: false,
      signature: true,
      inclusion: false,
      anchored: false,
      problems: ["not anchored yet: the run's batch has no root on-chain so far"],
    });
  });

  it("finds a receipt of another contract or chain than the one expected invalid", async () => {
    const document = batch[0] as ReceiptDocument;
    const elsewhere = "0x00000000000000000000000000000000000c0de5";
    expect(await verify(document, elsewhere)).toEqual({
      valid: false,
      signature: false,
      inclusion: true,
      anchored: false,
      problems: [`the receipt is of contract ${document.contract}, not ${elsewhere}`],
    });
    // The document naming another contract: nothing there answers for receipts.
    const noMarketplace = await verify({ ...document, contract: elsewhere });
    expect(noMarketplace).toMatchObject({ valid: false, signature: false, anchored: false });
    expect(await verify({ ...document, chain_id: 1 })).toEqual({
      valid: false,
      signature: false,
      inclusion: true,
      anchored: false,
      problems: [`the receipt is of chain 1; ${stack().anvil.rpcUrl} is chain 31337`],
    });
  });
});

describe("npm run verify-receipt", () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    promisify(execFile)("node", [join(root, "scripts/verifyReceipt.ts"), ...args], {
      cwd: root,
      env: { ...process.env, PATH: `${root}node_modules/.bin:${process.env.PATH}`, ...env },
    }).then(
      ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        status: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );
  const written = async (name: string, document: unknown) => {
    const file = join(stack().dir, name);
    await writeFile(file, JSON.stringify(document, null, 2));
    return file;
  };

  it("exits 0 for a valid receipt, printing each check", async () => {
    const file = await written("valid.json", batch[0]);
    const { address } = stack().deployment;
    const result = await cli([file, "--rpc-url", stack().anvil.rpcUrl, "--contract", address]);
    expect(result).toMatchObject({ status: 0, stderr: "" });
    expect(result.stdout).toMatch(
      /signature {2}yes\n {2}inclusion {2}yes\n {2}anchored {3}yes \(block \d+/,
    );
    expect(result.stdout.trim().split("\n").at(-1)).toBe("valid");
    // The node from RPC_URL when no --rpc-url is given.
    expect(await cli([file], { RPC_URL: stack().anvil.rpcUrl })).toMatchObject({ status: 0 });
  });

  it("exits 1 for a tampered receipt, naming what is wrong", async () => {
    const document = batch[0] as ReceiptDocument;
    const file = await written("tampered.json", {
      ...document,
      receipt: { ...document.receipt, cost_wei: "1" },
    });
    const result = await cli([file, "--rpc-url", stack().anvil.rpcUrl]);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/signature {2}no\n/);
    expect(result.stdout).toMatch(/- leaf 0x[0-9a-f]{64} is not the receipt's/);
    expect(result.stdout.trim().split("\n").at(-1)).toBe("NOT valid");
  });

  it("exits 2 with one line, no stack trace, when it cannot check", async () => {
    const notJson = join(stack().dir, "not.json");
    await writeFile(notJson, "{ receipt");
    const valid = await written("valid-again.json", batch[0]);
    for (const [args, message] of [
      [[join(stack().dir, "missing.json")], /^cannot read .*missing\.json: ENOENT\n$/],
      [[notJson], /^.*not\.json is not JSON\n$/],
      [[], /^usage: npm run verify-receipt -- <receipt\.json>/],
      [[valid, "--contract", "0x12"], /^--contract 0x12 is not a 0x address\n$/],
      [[valid, "--rpc-url", "http://127.0.0.1:1"], /^cannot read the chain: no answer from/],
    ] as const) {
      const result = await cli([...args]);
      expect(result, String(args)).toMatchObject({ status: 2, stdout: "" });
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});
