import { sealingKeyId } from "./sealingKeyId.ts";
import { open, seal } from "./secretBox.ts";

/** Ciphertext with the id of the key that sealed it, as the sealed columns store them. */
export type SealedRecord = { sealed: Buffer; sealingKeyId: string };

/** A row sealed under another key than the reader's: the reader needs that key, not a retry. */
export class SealedUnderAnotherKey extends Error {}

/** Seals `plaintext` to `context` under `key`, naming the key. */
export function sealRecord(key: Uint8Array, plaintext: Uint8Array, context: string): SealedRecord {
  return { sealed: seal(key, plaintext, context), sealingKeyId: sealingKeyId(key) };
}

/**
 * Opens what `sealRecord` sealed. A row naming another key is refused before any decryption, with
 * both ids; a row from before key ids were kept (null) is tried with `key`.
 */
export function openRecord(
  key: Uint8Array,
  record: { sealed: Uint8Array; sealingKeyId: string | null },
  context: string,
): Buffer {
  const ours = sealingKeyId(key);
  if (record.sealingKeyId !== null && record.sealingKeyId !== ours) {
    throw new SealedUnderAnotherKey(
      `sealed under sealing key ${record.sealingKeyId}, but this process holds sealing key ${ours}`,
    );
  }
  try {
    return open(key, record.sealed, context);
  } catch (error) {
    const which = record.sealingKeyId === null ? "sealed before key ids were kept and" : "";
    throw new Error(
      `${which} does not open with sealing key ${ours}: not sealed to ${context}, or altered`.trim(),
      { cause: error },
    );
  }
}
