import { isAddressEqual, recoverTypedDataAddress } from "viem";
import { type MarketplaceReads, marketplaceReads } from "./marketplaceReads.ts";
import { verifyMerkleProof } from "./merkleTree.ts";
import { readReceiptDocument } from "./readReceiptDocument.ts";
import { receiptLeaf } from "./receiptLeaf.ts";
import {
  type Address,
  type Hex,
  RECEIPT_TYPES,
  type Receipt,
  receiptDomain,
  receiptMessage,
} from "./receiptTypes.ts";

export type VerifyReceiptOptions = {
  /** A node of the receipt's chain: the signer and the anchor are read there, never from the API. */
  rpcUrl: string;
  /** The marketplace the receipt must be of; the document's `contract` must equal it. */
  contract?: Address;
  /** A `fetch` to ask the node with; the global one by default. */
  fetch?: typeof fetch;
};

export type ReceiptVerification = {
  /** Every check holds and nothing is wrong with the document. */
  valid: boolean;
  /** Signed under the marketplace's domain by the contract's `receiptsSigner()`. */
  signature: boolean;
  /** The proof folds the receipt's leaf into the anchor's root. */
  inclusion: boolean;
  /** The contract holds the anchor's root, anchored at the anchor's block. */
  anchored: boolean;
  problems: string[];
};

/**
 * Checks a receipt document (docs/receipts.md) against the chain at `rpcUrl`: its leaf, its chain
 * and contract, its signature by the contract's receipts signer, its Merkle proof, and its root's
 * anchor block. A bad document is an answer (`valid: false` and its problems), never a throw; only a
 * chain that cannot be read throws, a `ChainReadError`, as it says nothing about the receipt (and a
 * `contract` option that is no address, a `TypeError`).
 */
export async function verifyReceipt(
  document: unknown,
  options: VerifyReceiptOptions,
): Promise<ReceiptVerification> {
  if (options.contract !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(options.contract)) {
    throw new TypeError(`contract ${options.contract} is not a 0x address`);
  }
  const { receipt, signature, chainId, contract, leaf, anchor, problems } =
    readReceiptDocument(document);
  const chain = marketplaceReads(options.rpcUrl, options.fetch);
  const ownLeaf = receipt && receiptLeaf(receipt);
  if (ownLeaf && leaf && ownLeaf !== leaf.toLowerCase()) {
    problems.push(`leaf ${leaf} is not the receipt's, ${ownLeaf}`);
  }

  // The signer and the anchor are read from the document's chain and contract: both must be the ones
  // asked. A document with nothing to check on-chain asks nothing.
  let marketplace: Address | undefined;
  if (contract && options.contract && !isAddressEqual(contract, options.contract)) {
    problems.push(`the receipt is of contract ${contract}, not ${options.contract}`);
  } else if (contract && chainId !== undefined && ((receipt && signature) || anchor)) {
    const actualChainId = await chain.chainId();
    if (actualChainId === chainId) marketplace = contract;
    else
      problems.push(
        `the receipt is of chain ${chainId}; ${options.rpcUrl} is chain ${actualChainId}`,
      );
  }

  const signed =
    receipt && signature && chainId !== undefined && marketplace
      ? await checkSignature(receipt, signature, chainId, marketplace, chain, problems)
      : false;

  let inclusion = false;
  let anchored = false;
  if (anchor === null) {
    problems.push("not anchored yet: the run's batch has no root on-chain so far");
  } else if (anchor) {
    inclusion = ownLeaf !== undefined && verifyMerkleProof(ownLeaf, anchor.proof, anchor.root);
    if (ownLeaf && !inclusion) problems.push(`the proof does not lead to root ${anchor.root}`);
    if (marketplace)
      anchored = await checkAnchor(anchor.root, anchor.block, marketplace, chain, problems);
  }
  return {
    valid: signed && inclusion && anchored && problems.length === 0,
    signature: signed,
    inclusion,
    anchored,
    problems,
  };
}

async function checkSignature(
  receipt: Receipt,
  signature: Hex,
  chainId: number,
  marketplace: Address,
  chain: MarketplaceReads,
  problems: string[],
): Promise<boolean> {
  const expected = await chain.receiptsSigner(marketplace);
  if (!expected) {
    problems.push(`${marketplace} answers no receiptsSigner(): not a marketplace with receipts`);
    return false;
  }
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({
      domain: receiptDomain(chainId, marketplace),
      types: RECEIPT_TYPES,
      primaryType: "Receipt",
      message: receiptMessage(receipt),
      signature,
    });
  } catch {
    problems.push("the signature is not a signature");
    return false;
  }
  if (isAddressEqual(signer, expected)) return true;
  problems.push(`signed by ${signer}, not by the contract's receipts signer ${expected}`);
  return false;
}

async function checkAnchor(
  root: Hex,
  block: number,
  marketplace: Address,
  chain: MarketplaceReads,
  problems: string[],
): Promise<boolean> {
  const anchoredAt = await chain.anchoredAt(marketplace, root);
  if (anchoredAt === undefined) {
    problems.push(`${marketplace} answers no anchoredAt(): not a marketplace with receipts`);
  } else if (anchoredAt === 0n) {
    problems.push(`root ${root} was never anchored on-chain`);
  } else if (anchoredAt !== BigInt(block)) {
    problems.push(`root ${root} was anchored at block ${anchoredAt}, not ${block}`);
  } else {
    return true;
  }
  return false;
}
