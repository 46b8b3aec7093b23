import { describe, expect, it } from "vitest";
import { valueAtPointer } from "./jsonPointer.ts";

const document = { files: [{ name: "a.ts" }, { name: "b.ts" }], "a/b": 1, "m~n": 2, "": 3 };

describe("valueAtPointer", () => {
  it.each([
    ["", document],
    ["/files/1/name", "b.ts"],
    ["/a~1b", 1],
    ["/m~0n", 2],
    ["/", 3],
  ])("finds %j", (pointer, value) => {
    expect(valueAtPointer(document, pointer)).toEqual({ value });
  });

  it.each([
    ["files", "no leading slash"],
    ["/files/2", "past the end of an array"],
    ["/files/01", "a leading zero"],
    ["/files/-1", "a negative index"],
    ["/missing", "a key that is not there"],
    ["/files/0/name/length", "into a string"],
    ["/__proto__", "an inherited key"],
    ["/constructor", "another inherited key"],
    ["/files/0/toString", "a method"],
  ])("finds nothing at %j (%s)", (pointer) => {
    expect(valueAtPointer(document, pointer)).toBeUndefined();
  });
});
