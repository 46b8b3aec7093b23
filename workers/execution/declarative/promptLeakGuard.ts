import { decodedRuns, leakNormalized } from "./leakNormalizer.ts";

/** Windows of this many letters and digits of the normalised prompt are looked for. */
const WINDOW = 48;
/** Windows start every STRIDE characters: any WINDOW + STRIDE - 1 characters of it hold one. */
const STRIDE = 16;
/** Letters and digits held back from the stream, so a repeat is caught before most of it is sent. */
const HOLD_BACK = 2 * (WINDOW + STRIDE);
/** Characters held back at most, however few letters they hold. */
const MAX_HOLD_BACK = 1024;
/** The end of the stream read for base64 and hex: any stretch this long encodes a whole window. */
const ENCODED_SPAN = 256;
/** How often, in characters streamed, the end of the stream is read for base64 and hex. */
const ENCODED_CHECK_EVERY = 64;
/** A %-escape the delta ends in may go on in the next ("%252541" at most): it is read with it. */
const ESCAPE_CARRY = 8;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]/u;

export type PromptLeakGuard = {
  /** Passes streamed text on, holding back the end; false once it repeats the prompt. */
  push: (delta: string) => boolean;
  /** Sends what is held back once it is read clean (the answer is over); false if it is not. */
  flush: () => boolean;
  /** Whether `text` repeats the prompt: tool arguments, a structured output's strings. */
  repeats: (text: string) => boolean;
};

/**
 * Keeps a declarative agent's private instructions from leaving the run, whatever the input talked
 * the model into: any run of about 63 letters and digits of the prompt (a shorter prompt: the whole
 * of it) found in the output or in a tool call's arguments fails the run. Both sides are compared
 * normalised (`leakNormalized`: URL-decoded, case folded, punctuation and spaces dropped), and base64
 * and hex runs are decoded and compared too. The stream is held back by 128 letters and digits so a
 * repeat is cut before it is sent. Translations and paraphrases are not caught: see
 * docs/declarative-agents.md. Linear in what it reads.
 */
export function promptLeakGuard(prompt: string, send: (text: string) => void): PromptLeakGuard {
  const finds = promptMatcher(leakNormalized(prompt));
  const repeats = (text: string) =>
    finds(leakNormalized(text)) || decodedRuns(text).some((run) => finds(leakNormalized(run)));

  // The end of what was scanned, normalised: a repeat may span deltas.
  let tail = "";
  // The end of the delta last pushed, when it may be an unfinished %-escape: not normalised yet.
  let carry = "";
  let recent = "";
  let sinceEncodedCheck = 0;
  let held = "";
  // Where `held` starts in the stream, and where the stream's letters and digits are from `first` on.
  let heldFrom = 0;
  let letters: number[] = [];
  let first = 0;
  let leaked = false;

  const scan = (delta: string, last: boolean) => {
    let raw = carry + delta;
    const unfinished = last ? -1 : raw.indexOf("%", raw.length - ESCAPE_CARRY);
    carry = unfinished === -1 ? "" : raw.slice(unfinished);
    if (unfinished !== -1) raw = raw.slice(0, unfinished);
    const text = tail + leakNormalized(raw);
    const found = finds(text, tail.length);
    tail = text.slice(-(WINDOW + STRIDE));

    const span = recent + delta;
    sinceEncodedCheck += delta.length;
    recent = span.slice(-ENCODED_SPAN);
    if (sinceEncodedCheck < ENCODED_CHECK_EVERY && !(last && sinceEncodedCheck > 0)) return found;
    sinceEncodedCheck = 0;
    return found || decodedRuns(span).some((run) => finds(leakNormalized(run)));
  };

  const release = () => {
    let cut = Math.max(heldFrom, heldFrom + held.length - MAX_HOLD_BACK);
    if (letters.length - first > HOLD_BACK) {
      cut = Math.max(cut, letters[letters.length - HOLD_BACK] ?? 0);
    }
    let length = cut - heldFrom;
    // Never between the two halves of a surrogate pair.
    if (/[\uDC00-\uDFFF]/.test(held.charAt(length))) length--;
    if (length <= 0) return;
    send(held.slice(0, length));
    held = held.slice(length);
    heldFrom += length;
    while ((letters[first] ?? Number.POSITIVE_INFINITY) < heldFrom) first++;
    if (first > 4 * HOLD_BACK) {
      letters = letters.slice(first);
      first = 0;
    }
  };

  return {
    push(delta) {
      if (leaked) return false;
      if (scan(delta, false)) {
        leaked = true;
        return false;
      }
      const offset = heldFrom + held.length;
      for (let index = 0; index < delta.length; index++) {
        if (isLetterOrDigit(delta, index)) letters.push(offset + index);
      }
      held += delta;
      release();
      return true;
    },
    flush() {
      if (!leaked && scan("", true)) leaked = true;
      if (!leaked && held) send(held);
      heldFrom += held.length;
      held = "";
      letters = [];
      first = 0;
      return !leaked;
    },
    repeats,
  };
}

function isLetterOrDigit(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122);
  // The first half of a pair stands for its character; the second is not counted again.
  if (code >= 0xdc00 && code <= 0xdfff) return false;
  return LETTER_OR_DIGIT.test(text.slice(index, index + 2));
}

/**
 * Whether a normalised text holds a window of the normalised prompt, looking only at windows that
 * end at or after `end` (those before were looked at already). Windows are found by a rolling hash,
 * so a text costs one step a character, and a hit is confirmed by comparing the characters.
 */
function promptMatcher(normalizedPrompt: string): (text: string, end?: number) => boolean {
  if (normalizedPrompt.length === 0) return () => false;
  if (normalizedPrompt.length <= WINDOW + STRIDE) {
    return (text) => text.includes(normalizedPrompt);
  }
  const windows = new Map<number, string[]>();
  for (let start = 0; start + WINDOW <= normalizedPrompt.length; start += STRIDE) {
    const window = normalizedPrompt.slice(start, start + WINDOW);
    const hash = hashOf(window, 0);
    windows.set(hash, [...(windows.get(hash) ?? []), window]);
  }
  return (text, end = 0) => {
    const from = Math.max(0, end - WINDOW + 1);
    if (from + WINDOW > text.length) return false;
    let hash = hashOf(text, from);
    for (let start = from; ; start++) {
      if (windows.get(hash)?.includes(text.slice(start, start + WINDOW))) return true;
      if (start + WINDOW >= text.length) return false;
      hash = (hash - ((text.charCodeAt(start) * TOP_POWER) % MODULUS) + MODULUS) % MODULUS;
      hash = (hash * BASE + text.charCodeAt(start + WINDOW)) % MODULUS;
    }
  };
}

const BASE = 131;
const MODULUS = 1_000_000_007;
/** BASE to the power WINDOW - 1: the weight of a window's first character in its hash. */
const TOP_POWER = Array.from({ length: WINDOW - 1 }).reduce<number>(
  (power) => (power * BASE) % MODULUS,
  1,
);

/** The hash of the WINDOW characters of `text` from `start`. */
function hashOf(text: string, start: number): number {
  let hash = 0;
  for (let index = start; index < start + WINDOW; index++) {
    hash = (hash * BASE + text.charCodeAt(index)) % MODULUS;
  }
  return hash;
}
