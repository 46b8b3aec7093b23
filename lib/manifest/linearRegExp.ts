import type { CodeOptions } from "ajv";
import { RE2JS } from "re2js";

/**
 * The most RE2 instructions a schema's pattern may compile to. Matching is linear in the input, but
 * its cost per character grows with the program (and past about a thousand instructions, faster than
 * the program): `(a|aa){700}$` takes half a second on 100 KB, `{1000}` twelve.
 */
export const MAX_PATTERN_PROGRAM_SIZE = 1_000;

/**
 * A JSON Schema `pattern` (ECMAScript syntax) compiled by RE2, which matches in time linear in the
 * input: no pattern can backtrack catastrophically. Throws a SyntaxError for a pattern that is not
 * ECMAScript, and an Error saying why for one RE2 cannot express (backreferences, lookaround) or
 * whose program is over `MAX_PATTERN_PROGRAM_SIZE`.
 */
export function compileLinearRegExp(pattern: string): RE2JS {
  // Only checks the syntax: the pattern is never matched by the backtracking engine.
  new RegExp(pattern, "u");
  // The translation below would read `\k<name>` and `\8` as letters; RE2 refuses `\1` itself.
  if (hasBackreference(pattern))
    throw new Error("backreferences (\\1, \\k<name>) are not supported");
  // ECMAScript escapes RE2 spells differently (`\u00e9` is `\x{00e9}`, `(?<n>` is `(?P<n>`).
  const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  if (compiled.programSize() > MAX_PATTERN_PROGRAM_SIZE) {
    throw new Error(
      `compiles to ${compiled.programSize()} instructions, more than ${MAX_PATTERN_PROGRAM_SIZE}`,
    );
  }
  return compiled;
}

/** In a valid `u` pattern, `\k` and `\1`–`\9` outside a class are backreferences and nothing else. */
function hasBackreference(pattern: string): boolean {
  // Escapes taken in pairs, left to right, so that `\\k` (a backslash, then k) is no escape of k.
  for (const [, escaped] of pattern.matchAll(/\\(.)/gsu)) {
    if (escaped === "k" || (escaped !== undefined && escaped >= "1" && escaped <= "9")) return true;
  }
  return false;
}

/**
 * Why the linear-time engine refuses an ECMAScript `pattern`; undefined when it compiles, and for a
 * pattern that is not ECMAScript at all (no JSON Schema regex, refused as such by compiling).
 */
export function unsupportedPatternReason(pattern: string): string | undefined {
  try {
    compileLinearRegExp(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Ajv's `code.regExp`: every `pattern` and `patternProperties` key it compiles goes through RE2.
 * Flags are ignored: Ajv asks only for "u", and RE2 always matches whole code points.
 */
export const linearRegExpEngine: NonNullable<CodeOptions["regExp"]> = Object.assign(
  (pattern: string) => compileLinearRegExp(pattern),
  // Names the engine in standalone code, which this project never generates.
  { code: "compileLinearRegExp" },
);
