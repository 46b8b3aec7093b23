import { newWebhookSecret } from "../../lib/agents/webhookSecret.ts";
import { sealRecord } from "../../lib/crypto/sealedRecord.ts";
import type { ManifestVersion } from "./buildRegistration.ts";

/**
 * A manifest's private part sealed to `sealedTo` (its listing, or its version); a connected agent's
 * is given a new webhook signing secret first.
 */
export function sealPrivatePart(
  sealingKey: Uint8Array,
  secret: ManifestVersion["secret"],
  sealedTo: string,
) {
  const withWebhookSecret = secret.entrypoint_url
    ? { ...secret, webhook_secret: newWebhookSecret() }
    : secret;
  return sealRecord(sealingKey, Buffer.from(JSON.stringify(withWebhookSecret)), sealedTo);
}
