import { hash, randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** The spec's key: a network prefix, then 256 random bits in base62. */
export const API_KEY_FORMAT = "intl_(test|live)_[0-9A-Za-z]{43}";
const API_KEY = new RegExp(`^${API_KEY_FORMAT}$`);

export type Network = "test" | "live";

/** A new key of 256 random bits: the value is shown once, only its hash is kept. */
export function generateApiKey(network: Network) {
  const key = `intl_${network}_${toBase62(randomBytes(32)).padStart(43, "0")}`;
  return { key, keyHash: hashApiKey(key), keyPreview: `${key.slice(0, 16)}…` };
}

/** A plain SHA-256 suffices: the key carries 256 bits of entropy, so there is nothing to brute-force. */
export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
}

/** Whether `token` is shaped like a key of `network` (a key of the other network never is valid). */
export function isApiKeyOf(token: string, network: Network): boolean {
  const match = API_KEY.exec(token);
  return match !== null && match[1] === network;
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith("intl_");
}

function toBase62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString("hex")}`);
  let text = "";
  while (value > 0n) {
    text = ALPHABET[Number(value % 62n)] + text;
    value /= 62n;
  }
  return text;
}
