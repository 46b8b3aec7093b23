/** Rounds of URL-decoding: "%252541" is "%2541", then "%41", then "A". */
const DECODE_ROUNDS = 3;
/** A run of %XX escapes: decoded together, so multi-byte UTF-8 characters come out whole. */
const PERCENT_ESCAPES = /(?:%[0-9a-f]{2})+/gi;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
/** Base64 (standard or URL-safe) and hex runs; those long enough to hold part of a prompt are read. */
const BASE64_RUN = /[A-Za-z0-9+/_-]+/g;
const HEX_RUN = /[0-9a-fA-F]+/g;
const MIN_RUN = 32;

/**
 * What the prompt-leak guard compares: `text` URL-decoded (up to three times over), case folded,
 * accents and compatibility forms (full-width letters, ligatures) reduced to their base letters,
 * and everything but letters and digits removed. "Y-O-U%20a_r_e" and "you are" are both "youare".
 * Linear in the length of `text`.
 */
export function leakNormalized(text: string): string {
  return percentDecoded(text).toLowerCase().normalize("NFKD").replace(NOT_LETTER_OR_DIGIT, "");
}

/**
 * The texts that base64 and hex runs of `text` (URL-decoded first) decode to, each run read from
 * each of its possible alignments, since a run found in part of a stream may start mid-group. Linear
 * in the length of `text`: each run is decoded six times at most.
 */
export function decodedRuns(text: string): string[] {
  const decoded = percentDecoded(text);
  const texts: string[] = [];
  for (const [run] of decoded.matchAll(BASE64_RUN)) {
    if (run.length < MIN_RUN) continue;
    const standard = run.replaceAll("-", "+").replaceAll("_", "/");
    for (let offset = 0; offset < 4; offset++) {
      texts.push(Buffer.from(standard.slice(offset), "base64").toString("utf8"));
    }
  }
  for (const [run] of decoded.matchAll(HEX_RUN)) {
    if (run.length < MIN_RUN) continue;
    for (let offset = 0; offset < 2; offset++) {
      texts.push(Buffer.from(run.slice(offset), "hex").toString("utf8"));
    }
  }
  return texts;
}

/** `text` with its %XX escapes decoded as UTF-8, repeatedly; malformed ones are left as they are. */
export function percentDecoded(text: string): string {
  let decoded = text;
  for (let round = 0; round < DECODE_ROUNDS && decoded.includes("%"); round++) {
    const next = decoded.replace(PERCENT_ESCAPES, (escapes) =>
      Buffer.from(escapes.replaceAll("%", ""), "hex").toString("utf8"),
    );
    if (next === decoded) break;
    decoded = next;
  }
  return decoded;
}
