import type { ContractErrorName } from "viem";
import { contractErrorName } from "../../lib/chain/contractErrorName.ts";
import type { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { ApiError, type ErrorCode } from "../http/errors.ts";

type MarketplaceError = ContractErrorName<typeof serviceMarketplaceAbi>;

/** The API code of every contract error: a new contract error fails the type check until mapped. */
export const CONTRACT_ERROR_CODES = {
  ListingNotActive: "listing_paused",
  ListingNotFound: "listing_not_found",
  ListingAlreadyExists: "invalid_request",
  CredentialNotFound: "credential_not_found",
  CredentialAlreadyExists: "invalid_request",
  InsufficientBalance: "insufficient_balance",
  Unauthorized: "forbidden",
  InvalidAccessType: "invalid_request",
  CredentialRevoked: "credential_revoked",
  CredentialExpired: "credential_expired",
  WithdrawalExceedsBalance: "invalid_request",
  FeeTooHigh: "invalid_request",
  PriceTooLow: "invalid_request",
  MetadataUriTooLong: "invalid_request",
  MetadataUriEmpty: "invalid_request",
  InvalidDuration: "invalid_request",
  DepositTooLow: "invalid_request",
  PriceAboveLimit: "invalid_request",
  ProtocolPaused: "service_unavailable",
  EscrowNotEmpty: "invalid_request",
  NothingToWithdraw: "invalid_request",
  IncorrectPayment: "invalid_request",
  TransferFailed: "internal_error",
  ZeroAddress: "invalid_request",
  Reentrancy: "forbidden",
  RunAlreadyRecorded: "invalid_request",
  ExitPending: "insufficient_balance",
  ListingNotPaused: "invalid_request",
  InvalidAnchor: "invalid_request",
} as const satisfies Record<MarketplaceError, ErrorCode>;

const MARKETPLACE_CONTRACT = "ServiceMarketplace";

/**
 * The API error for a contract error by name, carrying it as `on_chain_error`; `code` when one
 * contract error means several things (`ListingNotActive`: a paused listing, or a closed one).
 */
export function contractApiError(
  name: MarketplaceError,
  message: string,
  code: ErrorCode = CONTRACT_ERROR_CODES[name],
): ApiError {
  return new ApiError(code, message, {
    onChainError: { contract: MARKETPLACE_CONTRACT, error: name },
  });
}

/** The API error for a reverted marketplace call, or undefined when `error` is not a revert. */
export function apiErrorOfRevert(error: unknown, message: string): ApiError | undefined {
  const name = contractErrorName(error);
  if (name === undefined || !(name in CONTRACT_ERROR_CODES)) return undefined;
  return contractApiError(name as MarketplaceError, message);
}
