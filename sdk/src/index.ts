export {
  type CallOptions,
  type ExecuteOptions,
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
} from "./errors.ts";
export type { RetryOptions } from "./retry.ts";
export type * from "./types.ts";
export type { MessageSigner, WalletClientSigner, WalletSigner } from "./walletSession.ts";
