// The Playground's input form, read from an agent's input_schema: which schemas make a form, which
// stay raw JSON, and the input a form's values make.
import { describe, expect, it } from "vitest";
import {
  formFieldsOf,
  initialValues,
  inputFromValues,
  MAX_FORM_FIELDS,
  valuesFromInput,
} from "../../dashboard/src/playground/schemaForm.ts";

const schema = {
  type: "object",
  properties: {
    source: { type: "string", title: "Contract source", description: "The source" },
    language: { enum: ["solidity", "vyper"], default: "solidity" },
    max_findings: { type: "integer" },
    threshold: { type: "number" },
    strict: { type: "boolean" },
  },
  required: ["source"],
};

const propertiesOf = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`field_${i}`, { type: "string" }]));

describe("the form an input schema makes", () => {
  it("has one field per property, labelled by its title and hinted by its description", () => {
    const fields = formFieldsOf(schema);
    expect(fields?.map((field) => [field.name, field.label, field.kind, field.required])).toEqual([
      ["source", "Contract source", "text", true],
      ["language", "language", "choice", false],
      ["max_findings", "max_findings", "integer", false],
      ["threshold", "threshold", "number", false],
      ["strict", "strict", "boolean", false],
    ]);
    expect(fields?.[0]?.hint).toBe("The source");
  });

  it("leaves to raw JSON what a form cannot express, and schemas of too many properties", () => {
    for (const beyond of [
      { type: "object" },
      { type: "array", items: { type: "string" } },
      { type: "object", properties: { nested: { type: "object" } } },
      { type: "object", properties: { either: { type: ["string", "null"] } } },
      { type: "object", properties: { a: { type: "string" } }, oneOf: [] },
      { type: "object", properties: propertiesOf(MAX_FORM_FIELDS + 1) },
      { type: "object", properties: propertiesOf(5_000) },
      "not a schema",
      null,
    ]) {
      expect(formFieldsOf(beyond), JSON.stringify(beyond).slice(0, 80)).toBeUndefined();
    }
    expect(formFieldsOf({ properties: propertiesOf(MAX_FORM_FIELDS) })).toHaveLength(
      MAX_FORM_FIELDS,
    );
  });

  it("sends typed values, leaves out empty optional fields, and refuses a fractional integer", () => {
    const fields = formFieldsOf(schema) ?? [];
    expect(inputFromValues(fields, initialValues(fields))).toEqual({
      input: { source: "", language: "solidity", strict: false },
    });
    const values = { ...initialValues(fields), source: "x", max_findings: "3", threshold: "0.5" };
    expect(inputFromValues(fields, values)).toEqual({
      input: { source: "x", language: "solidity", max_findings: 3, threshold: 0.5, strict: false },
    });
    expect(inputFromValues(fields, { ...values, max_findings: "2.5" })).toEqual({
      problem: "max_findings must be a whole number.",
    });
  });

  it("fills the form from raw JSON only when the form has a field for all of it", () => {
    const fields = formFieldsOf(schema) ?? [];
    expect(valuesFromInput(fields, { source: "y", max_findings: 4, strict: true })).toEqual({
      source: "y",
      language: "",
      max_findings: "4",
      threshold: "",
      strict: true,
    });
    expect(valuesFromInput(fields, { source: "y", severity: "high" })).toBeUndefined();
    expect(valuesFromInput(fields, { strict: "yes" })).toBeUndefined();
    expect(valuesFromInput(fields, [1, 2])).toBeUndefined();
  });
});
