import { hashStruct } from "viem";
import { type Hex, RECEIPT_TYPES, type Receipt, receiptMessage } from "./receiptTypes.ts";

/** A receipt's leaf in its batch's Merkle tree: the EIP-712 struct hash of its `Receipt`. */
export function receiptLeaf(receipt: Receipt): Hex {
  return hashStruct({
    data: receiptMessage(receipt),
    primaryType: "Receipt",
    types: RECEIPT_TYPES,
  });
}
