import { createHash } from "node:crypto";

/** A JSON value, as an agent's output is delivered. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** What `app.runs` keeps of a run's output: `output`, `output_sha256` and `output_truncated`. */
export type StoredOutput = {
  /** The output itself, or a cut copy (a string) whose JSON text fits within the cap. */
  output: JsonValue;
  /** Hex SHA-256 of the whole output's JSON text (UTF-8) when `output` is a cut copy; else null. */
  sha256: string | null;
  truncated: boolean;
};

/**
 * What to keep of a delivered output within `capBytes` of JSON text (`RUN_OUTPUT_STORE_BYTES`): the
 * output itself when its JSON text fits; else a string that fits, cut after a whole character (never
 * inside a UTF-8 sequence or a surrogate pair): a string output cut, any other output's JSON text cut.
 * The SHA-256 of the whole JSON text lets whoever holds the whole output show it is the one delivered.
 */
export function storedOutput(output: JsonValue, capBytes: number): StoredOutput {
  if (capBytes < 2) throw new RangeError("the cap must hold at least an empty string's two quotes");
  const text = JSON.stringify(output);
  if (Buffer.byteLength(text, "utf8") <= capBytes) {
    return { output, sha256: null, truncated: false };
  }
  return {
    output: cutToFit(typeof output === "string" ? output : text, capBytes),
    sha256: createHash("sha256").update(text, "utf8").digest("hex"),
    truncated: true,
  };
}

/** The longest start of `text` whose JSON text (quotes and escapes included) takes at most `capBytes`. */
function cutToFit(text: string, capBytes: number): string {
  let left = capBytes - 2;
  let end = 0;
  // Code points, and lone surrogates one by one: a cut never splits a pair.
  for (const character of text) {
    const bytes = jsonBytes(character);
    if (bytes > left) break;
    left -= bytes;
    end += character.length;
  }
  return text.slice(0, end);
}

/** The bytes a character takes inside a JSON string as `JSON.stringify` writes it, in UTF-8. */
function jsonBytes(character: string): number {
  const code = character.codePointAt(0) as number;
  if (character === '"' || character === "\\") return 2;
  // \b \t \n \f \r; other control characters as \u00XX.
  if (code < 0x20) return code >= 0x08 && code <= 0x0d && code !== 0x0b ? 2 : 6;
  // A lone surrogate, written \uDXXX.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return code < 0x10000 ? 3 : 4;
}
