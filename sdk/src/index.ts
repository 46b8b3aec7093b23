export {
  type CallOptions,
  type ExecuteOptions,
  type ExecuteStream,
  ServiceClient,
  type ServiceClientOptions,
} from "./client.ts";
export {
  type OnChainError,
  ServiceAccessError,
  ServiceAPIError,
  ServiceAuthError,
  ServiceConnectionError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceSigningRefusedError,
  ServiceTimeoutError,
} from "./errors.ts";
export type { Paged } from "./paged.ts";
export { canonicalJson, sha256Json } from "./receipts/canonicalJson.ts";
export { ChainReadError } from "./receipts/marketplaceReads.ts";
export { buildMerkleTree, type MerkleTree, verifyMerkleProof } from "./receipts/merkleTree.ts";
export { receiptLeaf } from "./receipts/receiptLeaf.ts";
export {
  RECEIPT_TYPES,
  type Receipt,
  type ReceiptAnchor,
  type ReceiptDocument,
  type ReceiptMessage,
  receiptDomain,
  receiptMessage,
} from "./receipts/receiptTypes.ts";
export {
  type ReceiptVerification,
  type VerifyReceiptOptions,
  verifyReceipt,
} from "./receipts/verifyReceipt.ts";
export type { PurchaseWallet, Rental, RentChoice } from "./rent.ts";
export type { RetryOptions } from "./retry.ts";
export type * from "./types.ts";
export { SDK_VERSION } from "./version.ts";
export type { MessageSigner, WalletClientSigner, WalletSigner } from "./walletSession.ts";
