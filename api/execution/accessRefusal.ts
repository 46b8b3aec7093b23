import { credentialStatus } from "../../lib/marketplace/credentialStatus.ts";
import { contractApiError } from "../chain/contractErrors.ts";
import type { AccessRead } from "../credentials/readAccessState.ts";
import type { ApiError } from "../http/errors.ts";

/**
 * Why the chain's answer forbids the wallet a run, as the API error (with the contract error
 * `requireAccess` reverts with for the same state), or undefined when it may run. The listing's state
 * comes first: it is the same for every caller. Statuses follow `credentialStatus`, the contract's own
 * rule. A paused protocol refuses per-task runs alone (503: it will take them again); others go on.
 */
export function accessRefusal({
  block,
  listing,
  credential,
  protocolPaused,
}: AccessRead): ApiError | undefined {
  if (listing === "none") {
    return contractApiError("ListingNotFound", "No listing has this id on-chain");
  }
  if (listing === "closed") {
    return contractApiError(
      "ListingNotActive",
      "The creator closed this listing",
      "listing_closed",
    );
  }
  if (listing === "paused") {
    return contractApiError("ListingNotActive", "The creator paused this listing; no executions");
  }
  if (!credential) {
    return contractApiError("CredentialNotFound", "No credential for this wallet and listing");
  }
  switch (credentialStatus(credential, block.timestamp)) {
    case "revoked":
      return contractApiError("CredentialRevoked", "The creator revoked this credential");
    case "expired":
      return contractApiError("CredentialExpired", "The subscription has expired; renew it");
    case "low_balance":
      if (credential.exiting) {
        return contractApiError(
          "ExitPending",
          "You asked for this per-task balance back; a top-up keeps it and runs again",
        );
      }
      return contractApiError(
        "InsufficientBalance",
        "The per-task balance cannot pay for a run; top it up",
      );
    case "active":
      // A per-task run could not be charged: it would run for free.
      if (credential.rentalModel === "per_query" && protocolPaused) {
        return contractApiError(
          "ProtocolPaused",
          "The protocol is paused: per-task runs cannot be charged; retry later",
        );
      }
      return undefined;
  }
}
