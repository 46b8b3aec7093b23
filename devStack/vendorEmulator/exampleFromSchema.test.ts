import { describe, expect, it } from "vitest";
import { compileSchema } from "../../lib/manifest/compileInputValidator.ts";
import { exampleFromSchema } from "./exampleFromSchema.ts";

const schemas: [string, Record<string, unknown>][] = [
  [
    "an object with its required properties",
    {
      type: "object",
      properties: {
        summary: { type: "string" },
        score: { type: "number" },
        note: { type: "string" },
      },
      required: ["summary", "score"],
      additionalProperties: false,
    },
  ],
  ["an enum's first value", { type: "string", enum: ["buy", "sell", "hold"] }],
  ["a const", { const: { fixed: true } }],
  ["a string of bounded length", { type: "string", minLength: 12, maxLength: 14 }],
  ["a short string", { type: "string", maxLength: 3 }],
  ["an integer within bounds", { type: "integer", minimum: 3, maximum: 9 }],
  ["an integer above an exclusive bound", { type: "integer", exclusiveMinimum: 10 }],
  ["a negative number", { type: "number", maximum: -2.5 }],
  [
    "a number strictly between bounds",
    { type: "number", exclusiveMinimum: 0.1, exclusiveMaximum: 0.2 },
  ],
  ["a multiple within bounds", { type: "integer", minimum: 7, multipleOf: 5 }],
  ["an array with its minimum items", { type: "array", items: { type: "boolean" }, minItems: 3 }],
  ["a nullable type list", { type: ["null", "string"], minLength: 2 }],
  ["the first alternative", { anyOf: [{ type: "integer", minimum: 1 }, { type: "string" }] }],
  [
    "all parts of an allOf",
    {
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { properties: { b: { type: "integer", minimum: 2 } }, required: ["b"] },
      ],
    },
  ],
  [
    "local references, as zod and pydantic emit them",
    {
      type: "object",
      properties: { items: { type: "array", items: { $ref: "#/$defs/item" }, minItems: 2 } },
      required: ["items"],
      $defs: {
        item: {
          type: "object",
          properties: {
            sku: { type: "string", minLength: 8 },
            qty: { type: "integer", minimum: 1 },
          },
          required: ["sku", "qty"],
        },
      },
    },
  ],
  [
    "a self-referencing tree, kept finite",
    {
      $ref: "#/definitions/node",
      definitions: {
        node: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/definitions/node" } } },
          required: ["children"],
        },
      },
    },
  ],
  [
    "properties up to minProperties",
    { type: "object", properties: { x: {}, y: {} }, minProperties: 1 },
  ],
];

describe("exampleFromSchema", () => {
  it.each(schemas)("gives %s, valid against the schema", (_name, schema) => {
    const example = exampleFromSchema(schema);
    const validate = compileSchema(schema);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });

  it("gives well-formed values for common string formats", () => {
    const example = exampleFromSchema({
      type: "object",
      properties: {
        at: { type: "string", format: "date-time" },
        mail: { type: "string", format: "email" },
        link: { type: "string", format: "uri" },
      },
      required: ["at", "mail", "link"],
    }) as Record<string, string>;
    expect(Number.isNaN(Date.parse(example.at ?? ""))).toBe(false);
    expect(example.mail).toMatch(/^[^@\s]+@[^@\s]+$/);
    expect(() => new URL(example.link ?? "")).not.toThrow();
  });

  it("is deterministic", () => {
    const schema = schemas[0]?.[1] ?? {};
    expect(exampleFromSchema(schema)).toEqual(exampleFromSchema(schema));
    expect(exampleFromSchema(schema)).toEqual({ summary: "example", score: 0 });
  });
});
