// What the dashboard reads off an agent's schemas and a creator's days, without a browser: an
// output shown field by field, the vendor a model field names, a public manifest in the editor,
// and a chart's axis.
import { describe, expect, it } from "vitest";
import { axisTop } from "../../dashboard/src/creators/axisTop.ts";
import { hostedProviderOf } from "../../dashboard/src/creators/hostedProvider.ts";
import {
  editorValuesOf,
  fieldsBeyondTheEditor,
} from "../../dashboard/src/creators/manifestValues.ts";
import { outputFieldsOf } from "../../dashboard/src/playground/outputFields.ts";

const schema = {
  type: "object",
  properties: {
    summary: { type: "string", title: "Summary" },
    findings: { type: "array", items: { type: "string" } },
    details: { type: "object" },
    score: { type: "number" },
  },
};

describe("an output shown field by field", () => {
  it("labels each value by its property's title, in the schema's order, lists as lists", () => {
    const fields = outputFieldsOf(schema, {
      score: 0,
      findings: ["a", "a", 3],
      summary: "fine",
      details: { line: 12 },
    });
    expect(fields).toEqual([
      { name: "summary", label: "Summary", value: { kind: "text", text: "fine" } },
      { name: "findings", label: "findings", value: { kind: "list", items: ["a", "a", "3"] } },
      {
        name: "details",
        label: "details",
        value: { kind: "json", json: JSON.stringify({ line: 12 }, null, 2) },
      },
      { name: "score", label: "score", value: { kind: "text", text: "0" } },
    ]);
  });

  it("is not shown for a value the schema does not describe: the JSON view shows all of it", () => {
    expect(outputFieldsOf(schema, { summary: "fine", extra: 1 })).toBeUndefined();
    expect(outputFieldsOf(schema, "fine")).toBeUndefined();
    expect(outputFieldsOf(schema, ["fine"])).toBeUndefined();
    expect(outputFieldsOf(schema, {})).toBeUndefined();
    expect(outputFieldsOf({ type: "string" }, { summary: "fine" })).toBeUndefined();
    expect(outputFieldsOf({ type: "object" }, { summary: "fine" })).toBeUndefined();
  });
});

describe("the vendor key field", () => {
  it("is asked for a hosted vendor's model only", () => {
    expect(hostedProviderOf('{"provider": "openai", "model": "m"}')).toBe("OpenAI");
    expect(hostedProviderOf('{"provider": "anthropic"}')).toBe("Anthropic");
    expect(hostedProviderOf('{"provider": "self_hosted"}')).toBeUndefined();
    expect(hostedProviderOf('{"provider": "toString"}')).toBeUndefined();
    expect(hostedProviderOf("{not json")).toBeUndefined();
    expect(hostedProviderOf("null")).toBeUndefined();
  });
});

describe("a public manifest in the editor", () => {
  const manifest = {
    kind: "declarative",
    name: "auditor",
    title: "The Auditor",
    category: "coding",
    model: { provider: "openai", model: "m" },
    input_schema: { type: "object" },
    timeout_seconds: 60,
    sample_output: ["ok"],
  };
  it("fills the editor's fields, JSON pretty-printed", () => {
    expect(editorValuesOf(manifest)).toEqual({
      name: "auditor",
      category: "coding",
      model: JSON.stringify(manifest.model, null, 2),
      input_schema: JSON.stringify(manifest.input_schema, null, 2),
      timeout_seconds: "60",
    });
  });
  it("keeps the fields the editor has no input for, but not the ones registration derives", () => {
    expect(fieldsBeyondTheEditor(manifest)).toEqual({
      title: "The Auditor",
      sample_output: ["ok"],
    });
  });
});

describe("a chart's axis", () => {
  it("tops its axis with a round number at or above the highest bar", () => {
    expect([0, 1, 3, 5, 7, 10, 0.0004, 120].map(axisTop)).toEqual([
      1, 1, 5, 5, 10, 10, 0.0005, 200,
    ]);
  });
});
