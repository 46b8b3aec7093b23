import { describe, expect, it } from "vitest";
import {
  compileLinearRegExp,
  MAX_PATTERN_PROGRAM_SIZE,
  unsupportedPatternReason,
} from "./linearRegExp.ts";

describe("compileLinearRegExp", () => {
  it.each([
    ["^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$", "ada@example.com", "ada@"],
    ["^\\d{4}-\\d{2}-\\d{2}$", "2025-01-31", "2025-1-31"],
    ["^caf\\u00e9$", "café", "cafe"],
    ["^\\u{1F600}+$", "😀😀", "😀!"],
    ["^(?<year>\\d{4})$", "2025", "25"],
    ["^\\p{Lu}", "Éclair", "éclair"],
    ["a/b", "xa/by", "ab"],
  ])("reads the ECMAScript pattern %j as JSON Schema means it", (pattern, matching, other) => {
    const regExp = compileLinearRegExp(pattern);
    expect(regExp.test(matching)).toBe(true);
    expect(regExp.test(other)).toBe(false);
  });

  it("reads an escaped backslash before k as a backslash and a k", () => {
    expect(compileLinearRegExp("^\\\\k$").test("\\k")).toBe(true);
  });

  it("searches like RegExp.test: anywhere in the string unless anchored", () => {
    expect(compileLinearRegExp("b+").test("abbbc")).toBe(true);
  });
});

describe("unsupportedPatternReason", () => {
  it.each([
    ["a backreference", "^(a)\\1$"],
    ["a named backreference", "^(?<x>a)\\k<x>$"],
    ["a ninth backreference", "(a)(b)(c)(d)(e)(f)(g)(h)(i)\\9"],
    ["a lookahead", "^(?=.*\\d)\\w+$"],
    ["a negative lookahead", "^(?!admin)\\w+$"],
    ["a lookbehind", "(?<=\\$)\\d+"],
  ])("refuses %s, which no linear-time engine can express", (_what, pattern) => {
    expect(unsupportedPatternReason(pattern)).toMatch(/\S/);
  });

  it(`refuses a program over ${MAX_PATTERN_PROGRAM_SIZE} instructions, whose matching slows with its size`, () => {
    expect(unsupportedPatternReason("(a|aa){300}$")).toMatch(/instructions, more than 1000/);
    expect(unsupportedPatternReason("(\\p{L}|\\d){300}$")).toBeUndefined();
  });

  it("leaves a pattern that is not ECMAScript at all to the schema compiler, which refuses it", () => {
    expect(unsupportedPatternReason("(")).toBeUndefined();
    expect(() => compileLinearRegExp("(")).toThrow(SyntaxError);
  });
});
