import type { Address, Hex, LocalAccount } from "viem";
import { receiptLeaf } from "../../sdk/src/receipts/receiptLeaf.ts";
import {
  RECEIPT_TYPES,
  type ReceiptDocument,
  receiptDomain,
  receiptMessage,
} from "../../sdk/src/receipts/receiptTypes.ts";
import type { RunRow } from "../db/appSchema.ts";
import { runReceipt } from "./runReceipt.ts";

/** Where an anchored receipt's root is on-chain. */
export type AnchorPlace = { root: Hex; tx: Hex; block: bigint };

/**
 * A finished run's receipt document (docs/receipts.md): the receipt as anchored, or, before its
 * batch is, as it will be; signed by the receipts key (deterministically: the same document every
 * time); with its proof, transaction and block once the chain holds its root.
 */
export async function receiptDocument(
  run: RunRow,
  anchor: AnchorPlace | undefined,
  chain: { chainId: number; marketplace: Address; receipts: LocalAccount },
): Promise<ReceiptDocument> {
  const receipt = run.receipt ?? runReceipt(run);
  const signature = await chain.receipts.signTypedData({
    domain: receiptDomain(chain.chainId, chain.marketplace),
    types: RECEIPT_TYPES,
    primaryType: "Receipt",
    message: receiptMessage(receipt),
  });
  return {
    receipt,
    signature,
    signer: chain.receipts.address,
    chain_id: chain.chainId,
    contract: chain.marketplace,
    leaf: receiptLeaf(receipt),
    anchor:
      anchor && run.anchorProof
        ? {
            root: anchor.root,
            proof: run.anchorProof,
            transaction: anchor.tx,
            block: Number(anchor.block),
          }
        : null,
  };
}
