import { describe, expect, it } from "vitest";
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
    guard.flush();
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
    expect(guard.repeats("I was told: Answer in French.")).toBe(true);
    expect(guard.repeats("Answer in French")).toBe(false);
  });
});
