import { describe, expect, it } from "vitest";
import { matchingLines, numberedLines, pageFrom, pageOf } from "./textPages.ts";

describe("pageOf", () => {
  it("takes whole characters up to the byte limit, never half of one", () => {
    // "é" is 2 bytes, "😀" 4 (a surrogate pair in JavaScript).
    expect(pageOf("aé😀b", 0, 3)).toEqual({ page: "aé", end: 2 });
    expect(pageOf("aé😀b", 0, 6)).toEqual({ page: "aé", end: 2 });
    expect(pageOf("aé😀b", 0, 7)).toEqual({ page: "aé😀", end: 4 });
    expect(pageOf("aé😀b", 2, 100)).toEqual({ page: "😀b", end: 5 });
  });
});

describe("pageFrom", () => {
  it("answers a short text whole, without a header", () => {
    expect(pageFrom("short", 0, 1000)).toBe("short");
  });

  it("says which part a page is and where the next starts", () => {
    const text = "x".repeat(1000);
    const first = pageFrom(text, 0, 500);
    expect(first).toMatch(
      /^\[characters 0 to 300 of 1000; call again with offset 300 for what follows\]\n/,
    );
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(500);
    expect(pageFrom(text, 900, 500)).toBe(`[characters 900 to 1000 of 1000]\n${"x".repeat(100)}`);
  });

  it("fails an offset past the end", () => {
    expect(() => pageFrom("abc", 4, 1000)).toThrow(
      "the offset is past the end: the text has 3 characters",
    );
  });
});

describe("numberedLines", () => {
  const text = "one\r\ntwo\nthree\nfour\n";

  it("numbers the lines asked for, from 1, without their line endings", () => {
    expect(numberedLines(text, 2, 3, 1000)).toBe("[lines 2 to 3 of 4]\n2: two\n3: three\n");
    expect(numberedLines(text, 3, 99, 1000)).toBe("[lines 3 to 4 of 4]\n3: three\n4: four\n");
  });

  it("stops at the byte limit and says where to go on from", () => {
    const many = Array.from({ length: 1000 }, (_, index) => `line ${index + 1}`).join("\n");
    const answer = numberedLines(many, 1, 1000, 1000);
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(1000);
    expect(answer).toMatch(
      /^\[lines 1 to (\d+) of 1000; call again from line (\d+) for what follows\]/,
    );
  });

  it("shows part of a line too long to show whole", () => {
    const answer = numberedLines("y".repeat(100_000), 1, 1, 16_000);
    expect(answer).toBe(`[lines 1 to 1 of 1]\n1: ${"y".repeat(400)}…\n`);
  });

  it("fails a line past the end, and a last line before the first", () => {
    expect(() => numberedLines(text, 5, 6, 1000)).toThrow(
      "there is no line 5: the text has 4 lines",
    );
    expect(() => numberedLines(text, 3, 2, 1000)).toThrow(
      "the last line asked for, 2, comes before the first",
    );
  });
});

describe("matchingLines", () => {
  const text = "alpha\nBeta release\nbeta test\ngamma";

  it("lists the numbered lines containing the text, literally", () => {
    expect(matchingLines(text, "beta", { maxBytes: 1000 })).toBe(
      "[1 line contains it]\n3: beta test\n",
    );
    expect(matchingLines(text, "beta", { ignoreCase: true, maxBytes: 1000 })).toBe(
      "[2 lines contain it]\n2: Beta release\n3: beta test\n",
    );
    expect(matchingLines(text, "delta", { maxBytes: 1000 })).toBe("No line contains that text.");
  });

  it("reads a pattern as plain text, so a catastrophic regular expression costs nothing", () => {
    const hostile = `${"a".repeat(200_000)}!`;
    const started = performance.now();
    expect(matchingLines(hostile, "(a+)+$", { maxBytes: 1000 })).toBe(
      "No line contains that text.",
    );
    expect(matchingLines("x (a+)+$ y", "(a+)+$", { maxBytes: 1000 })).toBe(
      "[1 line contains it]\n1: x (a+)+$ y\n",
    );
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("counts every match but shows only what fits, around the match in a long line", () => {
    const lines = Array.from({ length: 500 }, (_, index) => `${"z".repeat(1000)}needle ${index}`);
    const answer = matchingLines(lines.join("\n"), "needle", { maxBytes: 2000 });
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(2000);
    expect(answer).toMatch(/^\[500 lines contain it; the first \d+ are shown\]\n1: …z+needle 0\n/);
  });
});
