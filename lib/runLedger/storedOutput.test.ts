import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ENV_FIELDS } from "../env.ts";
import { type JsonValue, storedOutput } from "./storedOutput.ts";

const jsonBytes = (value: JsonValue) => Buffer.byteLength(JSON.stringify(value), "utf8");
/** No lone surrogate: every UTF-16 pair whole. */
const wellFormed = (text: string) => !/\p{Cs}/u.test(text);
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
/** The character (code point, or lone surrogate) of `text` at `index`. */
const characterAt = (text: string, index: number) =>
  String.fromCodePoint(text.codePointAt(index) as number);

/** Strings rich in what is hard to cut: multi-byte characters, pairs, lone surrogates, escapes. */
const hardString = fc.string({
  unit: fc.oneof(
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.constantFrom(
      "a",
      "é",
      "€",
      "😀",
      "𝄞",
      '"',
      "\\",
      "\n",
      "\u0001",
      "\u007f",
      "\ud800",
      "\udfff",
    ),
  ),
  maxLength: 60,
});

describe("storedOutput", () => {
  it("keeps an output whose JSON text fits, as it is, with no hash", () => {
    const output = { summary: "done", findings: [{ line: 3, note: "ok" }] };
    expect(storedOutput(output, jsonBytes(output))).toEqual({
      output,
      sha256: null,
      truncated: false,
    });
    expect(storedOutput("a".repeat(10), 12)).toEqual({
      output: "a".repeat(10),
      sha256: null,
      truncated: false,
    });
  });

  it("cuts a string one byte over the cap, hashing the whole output's JSON text", () => {
    expect(storedOutput("a".repeat(10), 11)).toEqual({
      output: "a".repeat(9),
      sha256: sha256(`"${"a".repeat(10)}"`),
      truncated: true,
    });
  });

  it("cuts multi-byte characters whole: never inside a UTF-8 sequence or a surrogate pair", () => {
    // JSON text: 2 quotes + a (1) + é (2) + € (3) + 😀 (4, a surrogate pair) = 12 bytes.
    const output = "aé€😀";
    const cuts = [
      [2, ""],
      [3, "a"],
      [4, "a"],
      [5, "aé"],
      [6, "aé"],
      [7, "aé"],
      [8, "aé€"],
      [9, "aé€"],
      [10, "aé€"],
      [11, "aé€"],
    ] as const;
    for (const [cap, cut] of cuts) {
      const stored = storedOutput(output, cap);
      expect({ cap, stored }).toEqual({
        cap,
        stored: { output: cut, sha256: sha256(JSON.stringify(output)), truncated: true },
      });
      // Its UTF-8 bytes are the first bytes of the whole's: a clean cut at a character boundary.
      const bytes = Buffer.from(cut, "utf8");
      expect(bytes.equals(Buffer.from(output, "utf8").subarray(0, bytes.length))).toBe(true);
      expect(wellFormed(cut)).toBe(true);
    }
    expect(storedOutput(output, 12).truncated).toBe(false);
  });

  it("counts the escapes JSON writes: quotes, backslashes, control characters, lone surrogates", () => {
    // Each `"` is written \" (2 bytes), \u0001 as \u0001 (6), a lone surrogate as \udXXX (6).
    expect(storedOutput('""""', 7).output).toBe('""');
    expect(storedOutput("\u0001\u0001", 13).output).toBe("\u0001");
    expect(storedOutput("\ud800\ud800", 13).output).toBe("\ud800");
    expect(storedOutput("\\\n\\", 7).output).toBe("\\\n");
  });

  it("stores any other output as its JSON text cut, as a string", () => {
    const output = { summary: "x".repeat(1_000), n: 1 };
    const stored = storedOutput(output, 100);
    expect(stored).toMatchObject({ truncated: true, sha256: sha256(JSON.stringify(output)) });
    expect(typeof stored.output).toBe("string");
    expect(stored.output).toMatch(/^\{"summary":"x+$/);
    expect(jsonBytes(stored.output)).toBeLessThanOrEqual(100);
  });

  it("finding: a creator's agent answering 1 MB a run leaves at most RUN_OUTPUT_STORE_BYTES a run", () => {
    const cap = ENV_FIELDS.RUN_OUTPUT_STORE_BYTES.parse(undefined);
    for (const output of [
      "€".repeat(350_000),
      { summary: "😀".repeat(260_000) },
      Array.from({ length: 100_000 }, (_, i) => ({ i })),
    ] as JsonValue[]) {
      const stored = storedOutput(output, cap);
      expect(jsonBytes(output)).toBeGreaterThan(1_000_000);
      expect(stored.truncated).toBe(true);
      expect(jsonBytes(stored.output)).toBeLessThanOrEqual(cap);
      // Not cut short either: within a character's escape of the cap.
      expect(jsonBytes(stored.output)).toBeGreaterThan(cap - 12);
      expect(stored.sha256).toBe(sha256(JSON.stringify(output)));
    }
  });

  it("cuts every string to the longest start that fits, never splitting a character", () => {
    fc.assert(
      fc.property(hardString, fc.integer({ min: 2, max: 400 }), (output, cap) => {
        const stored = storedOutput(output, cap);
        const fits = jsonBytes(output) <= cap;
        expect(stored.truncated).toBe(!fits);
        if (fits) {
          expect(stored).toEqual({ output, sha256: null, truncated: false });
          return;
        }
        const cut = stored.output as string;
        expect(output.startsWith(cut)).toBe(true);
        expect(jsonBytes(cut)).toBeLessThanOrEqual(cap);
        // The next whole character would not fit.
        const next = characterAt(output, cut.length);
        expect(jsonBytes(output.slice(0, cut.length + next.length))).toBeGreaterThan(cap);
        if (wellFormed(output)) expect(wellFormed(cut)).toBe(true);
        expect(stored.sha256).toBe(sha256(JSON.stringify(output)));
      }),
    );
  });

  it("cuts every other JSON value's text to fit, as a string", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 2, max: 200 }), (value, cap) => {
        const output = value as JsonValue;
        const stored = storedOutput(output, cap);
        if (jsonBytes(output) <= cap) {
          expect(stored).toEqual({ output, sha256: null, truncated: false });
          return;
        }
        const text = typeof output === "string" ? output : JSON.stringify(output);
        expect(typeof stored.output).toBe("string");
        expect(text.startsWith(stored.output as string)).toBe(true);
        expect(jsonBytes(stored.output)).toBeLessThanOrEqual(cap);
      }),
    );
  });
});
