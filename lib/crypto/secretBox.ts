import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const ALGORITHM = "aes-256-gcm";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with a fresh nonce per message. `context` (e.g. the listing id) is authenticated but
 * not stored, so a ciphertext copied to another listing's row fails to open.
 */
export function seal(key: Uint8Array, plaintext: Uint8Array, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function open(key: Uint8Array, sealed: Uint8Array, context: string): Buffer {
  const box = Buffer.from(sealed);
  const decipher = createDecipheriv(ALGORITHM, key, box.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(box.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(box.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

/** A 32-byte key from 64 hex characters. */
export function parseSecretKey(hex: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new Error("the encryption key must be 64 hex characters");
  return Buffer.from(hex, "hex");
}
