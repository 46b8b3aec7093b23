/**
 * A fresh Idempotency-Key: retries of one call send the same key, so the API runs (and charges) it
 * once. It needs to be unique per wallet, not secret.
 */
export function newIdempotencyKey(): string {
  const uuid = globalThis.crypto?.randomUUID?.();
  if (uuid) return uuid;
  const random = () =>
    Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0");
  return `${Date.now().toString(16)}-${random()}${random()}${random()}`;
}
