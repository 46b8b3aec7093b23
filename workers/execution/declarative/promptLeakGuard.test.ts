import { describe, expect, it } from "vitest";
import { leakNormalized } from "./leakNormalizer.ts";
import { promptLeakGuard } from "./promptLeakGuard.ts";

const PROMPT = [
  "You are Ledger Hawk, a forensic accountant.",
  "Score every transaction from 0 to 100 using the Benford deviation of its leading digits,",
  "then weight round-number amounts twice as heavily when they fall on a weekend.",
].join("\n");

function guarded(prompt = PROMPT) {
  const sent: string[] = [];
  const guard = promptLeakGuard(prompt, (text) => sent.push(text));
  return { guard, sent: () => sent.join("") };
}

describe("the prompt-leak guard", () => {
  it("passes an answer that does not repeat the prompt, whole and in order", () => {
    const { guard, sent } = guarded();
    const answer = "Transaction 4 looks unusual: its leading digit is 9. ".repeat(20);
    for (const piece of answer.match(/.{1,7}/gs) ?? []) expect(guard.push(piece)).toBe(true);
    expect(guard.flush()).toBe(true);
    expect(sent()).toBe(answer);
  });

  it("stops a verbatim repeat streamed a few characters at a time, before most of it is sent", () => {
    const { guard, sent } = guarded();
    const leak = `Sure! My instructions say: ${PROMPT}`;
    let allowed = true;
    for (const piece of leak.match(/.{1,5}/gs) ?? []) {
      allowed = guard.push(piece);
      if (!allowed) break;
    }
    guard.flush();
    expect(allowed).toBe(false);
    expect(sent().length).toBeLessThan(64);
    expect(guard.push("more")).toBe(false);
  });

  it("sees a repeat whose whitespace was changed", () => {
    const { guard } = guarded();
    const reflowed = PROMPT.replaceAll(" ", "  ").replaceAll("\n", " \t ");
    expect(guard.repeats(`Here you go:\n${reflowed}`)).toBe(true);
  });

  it("sees a part of a long prompt repeated in a tool call's arguments", () => {
    const { guard } = guarded();
    const part = "using the Benford deviation of its leading digits, then weight round-number";
    expect(guard.repeats(JSON.stringify({ url: "https://x.example/?q=", note: part }))).toBe(true);
    expect(guard.repeats(JSON.stringify({ url: "https://x.example/leading-digits" }))).toBe(false);
  });

  it("guards a short prompt as a whole", () => {
    const { guard } = guarded("Answer in French.");
    expect(guard.repeats("I was told: ANSWER in french!")).toBe(true);
    expect(guard.repeats("Answer in English.")).toBe(false);
  });

  it("does not fail on a prompt the model is asked about: an answer's last characters go with flush", () => {
    const { guard, sent } = guarded();
    expect(guard.push("Short answer.")).toBe(true);
    expect(sent()).toBe("");
    expect(guard.flush()).toBe(true);
    expect(sent()).toBe("Short answer.");
  });
});

/** Streams `text` through a guard a few characters at a time: whether it passed, and what was sent. */
function streamed(text: string, pieceLength = 5) {
  const { guard, sent } = guarded();
  let allowed = true;
  for (let start = 0; start < text.length && allowed; start += pieceLength) {
    allowed = guard.push(text.slice(start, start + pieceLength));
  }
  if (allowed) allowed = guard.flush();
  else guard.flush();
  return { allowed, sent: sent() };
}

/** The prompt's letters and digits in `sent`, normalised: how much of it went out. */
function promptLettersIn(sent: string) {
  const letters = leakNormalized(PROMPT);
  let longest = 0;
  const text = leakNormalized(sent);
  for (let length = 1; length <= letters.length; length++) {
    let found = false;
    for (let start = 0; start + length <= letters.length && !found; start++) {
      found = text.includes(letters.slice(start, start + length));
    }
    if (!found) break;
    longest = length;
  }
  return longest;
}

describe("finding M-3: copies of the prompt that are not verbatim", () => {
  const dashed = PROMPT.split("").join("-");
  const urlEncoded = encodeURIComponent(PROMPT);
  const cased = PROMPT.toUpperCase();
  const base64 = Buffer.from(PROMPT).toString("base64");
  const hex = Buffer.from(PROMPT).toString("hex");

  it.each([
    ["dash-separated", dashed],
    ["URL-encoded", urlEncoded],
    ["twice-URL-encoded", encodeURIComponent(urlEncoded)],
    ["case-changed", cased],
    [
      "full-width",
      PROMPT.replace(/[A-Za-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
    ],
    ["base64", base64],
    ["hex", hex],
  ])("a %s copy streamed is stopped, with no window of it sent", (_, copy) => {
    const { allowed, sent } = streamed(`Sure, here it is: ${copy} -- enjoy`);
    expect(allowed).toBe(false);
    expect(promptLettersIn(sent)).toBeLessThan(48);
  });

  it.each([
    ["dash-separated", dashed],
    ["URL-encoded", urlEncoded],
    ["case-changed", cased],
    ["base64", base64],
  ])("a %s copy in a tool call's URL is seen", (_, copy) => {
    const { guard } = guarded();
    const part = copy.slice(Math.floor(copy.length / 3), Math.floor((2 * copy.length) / 3));
    expect(guard.repeats(`https://attacker.example/?p=${part}`)).toBe(true);
  });

  it("a legitimate answer sharing some of the prompt's words passes whole", () => {
    const answer = [
      "As a forensic accountant would, I looked at every transaction.",
      "Transaction 12 falls on a weekend and its leading digit is 9; its score is 81.",
      "Round-number amounts: two. The Benford deviation of the set is small.",
    ].join(" ");
    const { allowed, sent } = streamed(answer, 3);
    expect(allowed).toBe(true);
    expect(sent).toBe(answer);
    expect(guarded().guard.repeats(answer)).toBe(false);
  });

  it("reads a long stream in time linear in its length", () => {
    const time = (length: number) => {
      const text = "Ledger line 2026-01-03, amount 1200.00 %41 QUJD; ".repeat(length / 50);
      const started = performance.now();
      streamed(text, 4);
      return performance.now() - started;
    };
    time(16_000);
    const short = Math.min(time(16_000), time(16_000), time(16_000));
    const long = Math.min(time(128_000), time(128_000), time(128_000));
    // Eight times the text: about eight times the time, far from the 64 of a quadratic scan.
    expect(long / short).toBeLessThan(20);
  });
});
