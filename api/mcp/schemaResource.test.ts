import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { asSchemaResource } from "./schemaResource.ts";

const ID = "urn:listing:lst_00:input";

/** `schema` as the `input` property of a tool's input schema, compiled as a client would. */
function asInputProperty(schema: Record<string, unknown>) {
  const tool = { type: "object", properties: { input: asSchemaResource(schema, ID) } };
  return new Ajv2020({ strict: false }).compile(tool);
}

describe("asSchemaResource", () => {
  it("leaves a schema without references as it is", () => {
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    expect(asSchemaResource(schema, ID)).toBe(schema);
  });

  it("keeps a recursive schema's references pointing into the schema", () => {
    const tree = {
      type: "object",
      properties: { name: { type: "string" }, child: { $ref: "#" } },
      additionalProperties: false,
    };
    const validate = asInputProperty(tree);
    expect(validate({ input: { name: "a", child: { name: "b" } } })).toBe(true);
    expect(validate({ input: { name: "a", child: { name: 3 } } })).toBe(false);
  });

  it("keeps references to the schema's own definitions resolving", () => {
    const schema = {
      type: "object",
      properties: { tags: { type: "array", items: { $ref: "#/$defs/tag" } } },
      $defs: { tag: { type: "string", maxLength: 3 } },
    };
    const validate = asInputProperty(schema);
    expect(validate({ input: { tags: ["abc"] } })).toBe(true);
    expect(validate({ input: { tags: ["abcd"] } })).toBe(false);
  });

  it("keeps the creator's own $id", () => {
    const schema = { $id: "https://example.com/input.json", items: { $ref: "#" } };
    expect(asSchemaResource(schema, ID)).toBe(schema);
  });
});
