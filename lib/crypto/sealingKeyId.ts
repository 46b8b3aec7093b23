import { createHash } from "node:crypto";

// Domain-separated, so the id is never a hash of the key that some other use might also publish.
const LABEL = "marketplace sealing key id v1\0";

/**
 * A sealing key's public name, stored beside what it sealed: the first 8 bytes of SHA-256 over a
 * label and the key, as 16 hex characters. It tells which key a row needs without revealing it.
 */
export function sealingKeyId(key: Uint8Array): string {
  return createHash("sha256").update(LABEL).update(key).digest("hex").slice(0, 16);
}
