import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Json } from "../../../sdk/src/receipts/canonicalJson.ts";

const sha256Hex = (text: string) =>
  `0x${createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex")}`;

/** The same value with every object's keys in reverse insertion order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reversedKeys(item)]),
  );
}

describe("canonicalJson", () => {
  it("sorts keys by UTF-16 code units, at every depth, with no whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 0, y: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":1,"z":0}]},"b":1}',
    );
    // Integer-like keys, which an object enumerates first and numerically, sort as strings.
    expect(canonicalJson({ 9: "nine", 10: "ten", a: "a", 1: "one" })).toBe(
      '{"1":"one","10":"ten","9":"nine","a":"a"}',
    );
  });

  it("orders RFC 8785's sorting example as the RFC does: UTF-16 units, not code points", () => {
    const value = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    const keys = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"];
    const members = keys.map(
      (key) => `${JSON.stringify(key)}:${JSON.stringify(value[key as keyof typeof value])}`,
    );
    expect(canonicalJson(value)).toBe(`{${members.join(",")}}`);
  });

  it("writes strings and numbers as JSON.stringify does: unicode as is, control characters escaped", () => {
    expect(canonicalJson("é ü 日本 😀")).toBe('"é ü 日本 😀"');
    expect(canonicalJson('a\n\t"\\\u0001\u001f')).toBe('"a\\n\\t\\"\\\\\\u0001\\u001f"');
    expect(canonicalJson("\ud800")).toBe('"\\ud800"');
    expect(canonicalJson([1e21, 0.1, -0, 1.5e-7, Number.NaN, true, false])).toBe(
      "[1e+21,0.1,0,1.5e-7,null,true,false]",
    );
  });

  it("makes absent input null, and leaves out undefined members as JSON.stringify does", () => {
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined, () => 1])).toBe("[null,null]");
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it("is JSON.stringify's value, whatever order the keys were written in", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reversedKeys(value))).toBe(text);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe("sha256Json", () => {
  it("is the SHA-256 of the canonical JSON's UTF-8 bytes", () => {
    expect(sha256Json({ b: "ü", a: [1, 2] })).toBe(sha256Hex('{"a":[1,2],"b":"ü"}'));
    expect(sha256Json("😀")).toBe(sha256Hex('"😀"'));
    expect(sha256Json(undefined)).toBe(sha256Hex("null"));
    expect(sha256Json("https://agent.example/run")).toBe(sha256Hex('"https://agent.example/run"'));
  });
});
