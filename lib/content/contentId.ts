import { createHash } from "node:crypto";

const CID_VERSION_1 = 0x01;
const RAW_CODEC = 0x55;
const SHA2_256 = 0x12;
const BASE32_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** The IPFS CIDv1 of `bytes` as a raw block hashed with SHA-256, in base32 (`bafkrei…`). */
export function contentId(bytes: Uint8Array): string {
  const digest = createHash("sha256").update(bytes).digest();
  const cid = Uint8Array.from([CID_VERSION_1, RAW_CODEC, SHA2_256, digest.length, ...digest]);
  return `b${base32(cid)}`;
}

export function ipfsUri(bytes: Uint8Array): string {
  return `ipfs://${contentId(bytes)}`;
}

/** RFC 4648 base32, lowercase, unpadded: multibase's `b`. */
function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let text = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      text += BASE32_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) text += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  return text;
}
