// The events a wallet's webhook endpoints may subscribe to, and whose they are: a run's and a
// credential's go to its renter, a listing's to its creator (docs/webhooks.md).

export const WEBHOOK_EVENTS = [
  "run.completed",
  "run.failed",
  "credential.low_balance",
  "credential.expiring",
  "listing.purchased",
  "listing.reviewed",
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** How an attempt at a delivery stands: waiting for its time, in flight, or done either way. */
export const DELIVERY_STATUSES = ["pending", "sending", "delivered", "failed"] as const;

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A subscription is announced `credential.expiring` this long before it expires, in seconds. */
export const EXPIRING_NOTICE_SECONDS = 3 * 86_400;
