import { APIUserAbortError as AnthropicAbort, APIError as AnthropicError } from "@anthropic-ai/sdk";
import { APIUserAbortError as OpenAIAbort, APIError as OpenAIError } from "openai";
import { OutboundFailure } from "../outbound/outboundFailure.ts";

/** Statuses a vendor answers when trying again later may work: rate limits, overload, outages. */
const TRANSIENT_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

type VendorError = OpenAIError | AnthropicError;

function asVendorError(error: unknown): VendorError | undefined {
  return error instanceof OpenAIError || error instanceof AnthropicError ? error : undefined;
}

/**
 * Whether a failed vendor call may be tried again, and after how long at the least (the vendor's
 * `retry-after`, in ms, when it sent one). Connection failures are transient too; an abort is not.
 */
export function transientVendorFailure(error: unknown): { retryAfterMs?: number } | undefined {
  if (isBrokenConnection(error)) return {};
  const vendorError = asVendorError(error);
  if (!vendorError || isAbort(vendorError) || refusedByGuard(vendorError)) return undefined;
  if (vendorError.status === undefined) return {};
  if (!TRANSIENT_STATUSES.has(vendorError.status)) return undefined;
  const retryAfterMs = retryAfter(vendorError.headers);
  return retryAfterMs === undefined ? {} : { retryAfterMs };
}

/**
 * Why the run failed, for its renter: the vendor's status at most. A vendor's error body is never
 * repeated, since some echo the credentials the call was made with.
 */
export function vendorFailure(error: unknown): string | undefined {
  if (isBrokenConnection(error)) return "the connection to the model vendor broke";
  const vendorError = asVendorError(error);
  if (!vendorError) return undefined;
  if (refusedByGuard(vendorError)) return (vendorError.cause as OutboundFailure).message;
  if (vendorError.status === 401 || vendorError.status === 403) {
    return "the model vendor refused the agent's credentials";
  }
  if (vendorError.status !== undefined)
    return `the model vendor answered HTTP ${vendorError.status}`;
  return isAbort(vendorError) ? undefined : "the model vendor could not be reached";
}

const FETCH_FAILURES = new Set(["terminated", "fetch failed"]);

/** A self-hosted server the outbound guard would not call: its reason, never worth a retry. */
function refusedByGuard(error: VendorError): boolean {
  return error.cause instanceof OutboundFailure;
}

/** fetch's own failure (`terminated`, `fetch failed`): a connection cut before or while answering. */
function isBrokenConnection(error: unknown): boolean {
  return error instanceof TypeError && FETCH_FAILURES.has(error.message);
}

function isAbort(error: VendorError): boolean {
  return error instanceof OpenAIAbort || error instanceof AnthropicAbort;
}

function retryAfter(headers: Headers | undefined): number | undefined {
  const milliseconds = Number(headers?.get("retry-after-ms"));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return milliseconds;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
