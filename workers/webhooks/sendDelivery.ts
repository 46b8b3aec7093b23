import { Webhook } from "standardwebhooks";
import { type GuardedPostOptions, guardedPost } from "../execution/outbound/guardedPost.ts";
import { CONNECT_TIMEOUT_MS } from "../execution/outbound/guardedRequest.ts";
import { OutboundFailure, OutboundRefusal } from "../execution/outbound/outboundFailure.ts";

/**
 * How an attempt ended: the endpoint took it (a 2xx), it may take it later (any other status, no
 * answer in time, unreachable), or the outbound rules refuse it (not HTTPS, an address outside the
 * public internet, a redirect), which no retry changes.
 */
export type AttemptOutcome =
  | { kind: "delivered"; status: number }
  | { kind: "failed"; status: number | null; error: string }
  | { kind: "refused"; error: string };

/**
 * POSTs one delivery's body to its endpoint through the outbound guard, signed with Standard
 * Webhooks headers under the endpoint's secret (`webhook-id` the delivery's id, the same at every
 * attempt; `webhook-timestamp` this attempt's). The answer's status is all that is read of it: its
 * body is never read, so an endpoint answering slowly or without end holds nothing. The attempt
 * ends at `timeoutMs`, or when `signal` aborts (the process stopping).
 */
export async function sendDelivery(
  { id, url, secret, body }: { id: string; url: string; secret: string; body: string },
  {
    timeoutMs,
    signal,
    outbound,
  }: { timeoutMs: number; signal: AbortSignal; outbound: GuardedPostOptions },
): Promise<AttemptOutcome> {
  const now = new Date();
  const headers = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, now, body),
  };
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    const response = await guardedPost(
      url,
      { headers, body, signal: AbortSignal.any([deadline, signal]) },
      { connectTimeoutMs: Math.min(timeoutMs, CONNECT_TIMEOUT_MS), ...outbound },
    );
    response.close();
    if (response.status >= 200 && response.status < 300) {
      return { kind: "delivered", status: response.status };
    }
    return {
      kind: "failed",
      status: response.status,
      error: `the endpoint answered HTTP ${response.status}`,
    };
  } catch (error) {
    if (error instanceof OutboundRefusal) return { kind: "refused", error: error.message };
    if (!(error instanceof OutboundFailure)) throw error;
    const message = deadline.aborted
      ? `the endpoint did not answer within ${timeoutMs / 1000} s`
      : error.message;
    return { kind: "failed", status: null, error: message };
  }
}
