import { randomBytes } from "node:crypto";

/** A webhook signing secret as Standard Webhooks writes it: `whsec_` and 32 random bytes in base64. */
export const WEBHOOK_SECRET_FORMAT = "whsec_[A-Za-z0-9+/]{43}=";

/** A new secret for a connected agent: the service signs its webhook calls with it. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
