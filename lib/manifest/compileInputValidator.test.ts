import { describe, expect, it } from "vitest";
import { compileInputValidator } from "./compileInputValidator.ts";

const reviewInput = {
  type: "object",
  properties: {
    diff: { type: "string" },
    files: {
      type: "array",
      items: {
        type: "object",
        properties: { path: { type: "string" }, lines: { type: "integer", minimum: 1 } },
        required: ["path"],
        additionalProperties: false,
      },
    },
    "max findings": { type: "integer" },
  },
  required: ["diff"],
};

describe("compileInputValidator", () => {
  const validate = compileInputValidator(reviewInput);

  it("accepts input that matches the schema", () => {
    expect(validate({ diff: "+x", files: [{ path: "a.ts", lines: 3 }] })).toEqual({ ok: true });
  });

  it.each([
    [{ diff: 5 }, "input.diff", "must be string"],
    [
      { diff: "+x", files: [{ path: "a.ts" }, { path: "b.ts", lines: 0 }] },
      "input.files[1].lines",
      "must be >= 1",
    ],
    [{ diff: "+x", "max findings": "all" }, 'input["max findings"]', "must be integer"],
    ["review this", "input", "must be object"],
  ])("names the JSON path of a mismatch: %j", (input, path, message) => {
    expect(validate(input)).toEqual({ ok: false, mismatch: { path, message } });
  });

  it("names a missing property, not the object that lacks it", () => {
    expect(validate({ files: [] })).toEqual({
      ok: false,
      mismatch: { path: "input.diff", message: "is required" },
    });
    expect(validate({ diff: "+x", files: [{}] }).ok).toBe(false);
    expect(validate({ diff: "+x", files: [{}] })).toMatchObject({
      mismatch: { path: "input.files[0].path" },
    });
  });

  it("names a property the schema does not allow", () => {
    expect(validate({ diff: "+x", files: [{ path: "a.ts", mode: "w" }] })).toEqual({
      ok: false,
      mismatch: { path: "input.files[0].mode", message: "is not allowed" },
    });
  });

  it("reads JSON Pointer escapes back into keys", () => {
    const slashed = compileInputValidator({
      type: "object",
      properties: { "a/b~c": { type: "string" } },
    });
    expect(slashed({ "a/b~c": 1 })).toMatchObject({ mismatch: { path: 'input["a/b~c"]' } });
  });

  it("answers for input nested past the stack under a recursive schema, without throwing", () => {
    const tree = compileInputValidator({
      type: "object",
      properties: { child: { $ref: "#" } },
    });
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 50_000; level += 1) deep = { child: deep };
    expect(tree(deep)).toEqual({
      ok: false,
      mismatch: { path: "input", message: "is nested too deeply to check" },
    });
  });
});

describe("finding: manifest schemas cannot stall a process (patterns match in linear time)", () => {
  const evilInput = `${"a".repeat(100_000)}!`;

  it("checks 100 KB against ^(a+)+$ and reports the mismatch, where a backtracking engine would hang", () => {
    const validate = compileInputValidator({ type: "string", pattern: "^(a+)+$" });
    // Backtracking takes about 2^n steps here: 30 characters already take seconds.
    expect(validate(evilInput)).toEqual({
      ok: false,
      mismatch: { path: "input", message: 'must match pattern "^(a+)+$"' },
    });
    expect(validate("a".repeat(100_000))).toEqual({ ok: true });
  });

  it("matches property names against patternProperties in linear time too", () => {
    const validate = compileInputValidator({
      type: "object",
      patternProperties: { "^(a|aa)+$": { type: "integer" } },
      additionalProperties: false,
    });
    expect(validate({ [evilInput]: 1 })).toEqual({
      ok: false,
      mismatch: { path: `input["${evilInput}"]`, message: "is not allowed" },
    });
  });

  it("reads ECMAScript escapes and classes as JSON Schema writes them", () => {
    const validate = compileInputValidator({
      type: "string",
      pattern: "^(?<word>[\\u00e9\\w-]+)\\/\\d{2}$",
    });
    expect(validate("café-au/42")).toEqual({ ok: true });
    expect(validate("café au/42").ok).toBe(false);
  });
});
