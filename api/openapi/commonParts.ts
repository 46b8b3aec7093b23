// What many operations' descriptions share: error lists, the charging rule, ids' descriptions.
import type { ErrorCode } from "../http/errors.ts";

/** The charging rule as renters read it (docs/execution.md, "The charging rule"). */
export const CHARGING_RULE =
  "Per task, output delivered is charged and nothing delivered is not: a run is charged its " +
  "admission price (or the current price if lower) when any of its output reached you, a streamed " +
  "delta or a completed run's output, whether it then completed or failed; a run that fails " +
  "before any output costs nothing and answers no agent output. `cost_wei` is what was debited.";

export const LISTING_ID = "API listing id: `lst_` and 64 hex digits";
export const WEBHOOK_ID = "The endpoint's id (`whk_…`)";
/** What any request may be answered besides its own failures. */
export const ANY_REQUEST: ErrorCode[] = [
  "rate_limit_exceeded",
  "internal_error",
  "service_unavailable",
];
/** What any authenticated request may be answered besides its own failures. */
export const AUTHENTICATED: ErrorCode[] = [
  "unauthorized",
  "invalid_api_key",
  "jwt_expired",
  "forbidden",
  ...ANY_REQUEST,
];
/** What a request naming a listing may be answered when its id is malformed or names none. */
export const NAMED_LISTING: ErrorCode[] = ["invalid_listing_id", "listing_not_found"];
/** What a task sent to an agent may be answered, streamed or not. */
export const EXECUTION_ERRORS: ErrorCode[] = [
  "invalid_request",
  ...NAMED_LISTING,
  "credential_not_found",
  "credential_expired",
  "credential_revoked",
  "insufficient_balance",
  "listing_paused",
  "listing_closed",
  "max_cost_exceeded",
  "spend_cap_exceeded",
  "listing_not_allowed",
  "payload_too_large",
  ...AUTHENTICATED,
];
