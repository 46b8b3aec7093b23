import { ServiceAPIError, ServiceRateLimitError } from "@service/sdk";
import { BaseError, ContractFunctionRevertedError, UserRejectedRequestError } from "viem";

/** What went wrong, in words, and the API code or contract error when there is one. */
export type Explained = { message: string; code?: string };

const API_MESSAGES: Record<string, string> = {
  unauthorized: "Sign in with your wallet first.",
  invalid_api_key: "This API key is invalid or was revoked.",
  jwt_expired: "Your session expired: sign in again.",
  invalid_signature: "The wallet's signature could not be verified: sign in again.",
  credential_not_found: "You hold no credential for this agent: rent it first.",
  credential_expired: "Your subscription expired: renew it to run tasks.",
  insufficient_balance: "Your per-task balance cannot cover a run: top it up.",
  listing_paused: "The creator paused this listing: no runs for now.",
  listing_not_found: "No published listing has this id.",
  invalid_listing_id: "This is not a listing id.",
  service_unavailable: "The service is briefly unavailable; try again in a moment.",
  internal_error: "Something failed on our side; try again.",
};

const CONTRACT_MESSAGES: Record<string, string> = {
  EscrowNotEmpty:
    "The listing's escrow still holds earnings: withdraw them first, or pause the listing to withdraw and close in one step.",
  CredentialAlreadyExists: "You already hold a credential for this listing.",
  ListingNotActive: "The listing is paused or closed: it takes no purchases.",
  IncorrectPayment: "The amount sent differs from the price; reload and try again.",
  DepositTooLow: "The deposit must cover at least one task.",
  PriceAboveLimit: "The price rose since you looked; reload and try again.",
  ProtocolPaused: "The marketplace is paused: purchases are stopped for now.",
  NothingToWithdraw: "There are no earnings to withdraw.",
};

export function explainError(error: unknown): Explained {
  if (error instanceof ServiceRateLimitError) {
    return { message: `Too many requests: try again in ${error.retryAfter} s.`, code: error.code };
  }
  if (error instanceof ServiceAPIError) {
    const message = API_MESSAGES[error.code] ?? error.message;
    return { message: `${message} (request ${error.requestId})`, code: error.code };
  }
  if (error instanceof BaseError) {
    if (error.walk((cause) => cause instanceof UserRejectedRequestError)) {
      return { message: "You declined the request in your wallet." };
    }
    const revert = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
    const name =
      revert instanceof ContractFunctionRevertedError ? revert.data?.errorName : undefined;
    if (name)
      return { message: CONTRACT_MESSAGES[name] ?? `The contract refused: ${name}.`, code: name };
    return { message: error.shortMessage };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}
