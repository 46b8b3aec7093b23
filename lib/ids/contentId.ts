import { createHash } from "node:crypto";
import { CID } from "multiformats/cid";
import * as raw from "multiformats/codecs/raw";
import * as Digest from "multiformats/hashes/digest";
import { sha256 } from "multiformats/hashes/sha2";

/** The IPFS CIDv1 of `bytes` as a raw block hashed with SHA-256, in base32 (`bafkrei…`). */
export function contentId(bytes: Uint8Array): string {
  const digest = Digest.create(sha256.code, createHash("sha256").update(bytes).digest());
  return CID.createV1(raw.code, digest).toString();
}

/** Whether `text` is a content id this service issues: CIDv1, raw, SHA-256, base32. */
export function isContentId(text: string): boolean {
  if (!/^bafkrei[a-z2-7]{52}$/.test(text)) return false;
  try {
    return CID.parse(text).toString() === text;
  } catch {
    return false; // base32 with bits left over that decode to nothing
  }
}
