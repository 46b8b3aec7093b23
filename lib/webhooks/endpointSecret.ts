import { openRecord, type SealedRecord, sealRecord } from "../crypto/sealedRecord.ts";

/** Seals an endpoint's `whsec_…` secret to its id: at rest it is never in the clear. */
export function sealEndpointSecret(
  key: Uint8Array,
  endpointId: string,
  secret: string,
): SealedRecord {
  return sealRecord(key, Buffer.from(secret), endpointId);
}

/** Opens what `sealEndpointSecret` sealed, for signing a delivery. */
export function openEndpointSecret(
  key: Uint8Array,
  endpoint: { id: string; secret: Buffer; sealingKeyId: string | null },
): string {
  const sealed = { sealed: endpoint.secret, sealingKeyId: endpoint.sealingKeyId };
  return openRecord(key, sealed, endpoint.id).toString();
}
