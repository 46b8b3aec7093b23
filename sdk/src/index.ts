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
export type { PurchaseWallet, Rental, RentChoice } from "./rent.ts";
export type { RetryOptions } from "./retry.ts";
export type * from "./types.ts";
export { SDK_VERSION } from "./version.ts";
export type { MessageSigner, WalletClientSigner, WalletSigner } from "./walletSession.ts";
