// Every failure leaves the API as the spec's error object; this is the one place codes meet statuses.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { setResponseHeader } from "./responseHeader.ts";

export const ERROR_STATUS = {
  unauthorized: 401,
  invalid_api_key: 401,
  jwt_expired: 401,
  invalid_signature: 401,
  forbidden: 403,
  credential_not_found: 403,
  credential_expired: 403,
  insufficient_balance: 403,
  listing_paused: 403,
  /** Beyond the spec's four: the creator revoked the credential, or closed the listing. */
  credential_revoked: 403,
  listing_closed: 403,
  /** The run's price is above the request's `max_cost_wei`. */
  max_cost_exceeded: 403,
  /** The API key's daily spend cap, or its allowed listings, do not allow the run. */
  spend_cap_exceeded: 403,
  listing_not_allowed: 403,
  /** Reviews: only a wallet that holds or held a credential and completed a run, not the creator. */
  review_not_allowed: 403,
  invalid_request: 400,
  invalid_listing_id: 400,
  listing_not_found: 404,
  job_not_found: 404,
  run_not_found: 404,
  review_not_found: 404,
  /** The run is not over, or what it costs is not final yet: its receipt comes then. */
  receipt_pending: 409,
  /** The creator replies to a review once. */
  review_already_replied: 409,
  not_found: 404,
  payload_too_large: 413,
  rate_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type OnChainError = { contract: string; error: string };

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ContentfulStatusCode;
  readonly onChainError?: OnChainError;
  /** Sent as `Retry-After`. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ErrorCode,
    message: string,
    options: { onChainError?: OnChainError; cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.onChainError = options.onChainError;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The spec's error object. */
export function errorBody(error: ApiError) {
  return {
    error: {
      code: error.code,
      message: error.message,
      status: error.status,
      ...(error.onChainError ? { on_chain_error: error.onChainError } : {}),
    },
  };
}

export function errorResponse(c: Context, error: ApiError) {
  if (error.retryAfterSeconds !== undefined) {
    setResponseHeader(c, "Retry-After", String(error.retryAfterSeconds));
  }
  return c.json(errorBody(error), error.status);
}
