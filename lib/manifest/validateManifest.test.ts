import { describe, expect, it } from "vitest";
import { TOOL_CATALOG, TOOL_NAMES } from "./toolCatalog.ts";
import { validateManifest } from "./validateManifest.ts";

const inputSchema = {
  type: "object",
  properties: { diff: { type: "string" } },
  required: ["diff"],
};
const outputSchema = { type: "object", properties: { review: { type: "string" } } };

/** Runs on the marketplace's hosted model with its own system prompt. */
function declarativeManifest(): Record<string, unknown> {
  return {
    name: "code-review-bot",
    category: "coding",
    description: "Reviews a pull request diff and points out bugs.",
    model: { provider: "anthropic", model: "claude-sonnet-4-5" },
    system_prompt: "You are a careful code reviewer.",
    tools: [{ name: "read_repo_file", scope: "repo_scoped" }],
    input_schema: inputSchema,
    output_schema: outputSchema,
    timeout_seconds: 120,
    title: "Code Review Bot",
    sample_output: ["Line 12 dereferences a possibly null user."],
    creator_display_name: "Ada",
  };
}

/** Runs behind the creator's own HTTPS entrypoint, on a self-hosted model. */
function connectedManifest(): Record<string, unknown> {
  return {
    name: "market-researcher-2",
    category: "research",
    description: "Summarises a market from public filings.",
    model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
    entrypoint_url: "https://agents.example.com/run",
    input_schema: { type: "object" },
    output_schema: { type: "object" },
  };
}

function declarativeWith(changes: Record<string, unknown>) {
  return { ...declarativeManifest(), ...changes };
}

function declarativeWithout(field: string) {
  const { [field]: _removed, ...rest } = declarativeManifest();
  return rest;
}

/** The violations as field + rule, the part callers match on. */
function violationsOf(input: unknown) {
  const result = validateManifest(input);
  return result.ok ? [] : result.violations.map(({ field, rule }) => ({ field, rule }));
}

/** `count` built-in tools with their scopes, the catalogue over again past its end. */
function tools(count: number) {
  return Array.from({ length: count }, (_, index) => {
    const name = TOOL_NAMES[index % TOOL_NAMES.length] as keyof typeof TOOL_CATALOG;
    return { name, scope: TOOL_CATALOG[name].scope };
  });
}

describe("validateManifest", () => {
  it("accepts a full declarative manifest as given", () => {
    expect(validateManifest(declarativeManifest())).toEqual({
      ok: true,
      manifest: declarativeManifest(),
    });
  });

  it("accepts a full connected manifest, defaulting the timeout to 60 seconds", () => {
    const result = validateManifest(connectedManifest());
    expect(result).toEqual({ ok: true, manifest: { ...connectedManifest(), timeout_seconds: 60 } });
  });

  it("rejects input that is not a JSON object", () => {
    for (const input of [null, [], "manifest", 42]) {
      expect(violationsOf(input)).toEqual([{ field: "manifest", rule: "type" }]);
    }
  });

  it.each(["name", "category", "description", "model", "input_schema", "output_schema"])(
    "requires %s",
    (field) => {
      expect(violationsOf(declarativeWithout(field))).toEqual([{ field, rule: "required" }]);
    },
  );

  it("requires model.provider", () => {
    const manifest = declarativeWith({ model: { model: "gpt-5" } });
    expect(violationsOf(manifest)).toEqual([{ field: "model.provider", rule: "required" }]);
  });

  it.each(["Code_Bot", "code--bot", "-code", "code-", "CODE", "code bot"])(
    "rejects the non-kebab-case name %j",
    (name) => {
      expect(violationsOf(declarativeWith({ name }))).toEqual([
        { field: "name", rule: "kebab_case" },
      ]);
    },
  );

  it("rejects a name longer than 64 characters", () => {
    const manifest = declarativeWith({ name: "a".repeat(65) });
    expect(violationsOf(manifest)).toEqual([{ field: "name", rule: "max_length" }]);
  });

  it("rejects a name that is not a string", () => {
    expect(violationsOf(declarativeWith({ name: 7 }))).toEqual([{ field: "name", rule: "type" }]);
  });

  it("rejects an empty description", () => {
    const manifest = declarativeWith({ description: "" });
    expect(violationsOf(manifest)).toEqual([{ field: "description", rule: "min_length" }]);
  });

  it("rejects an unknown category", () => {
    const manifest = declarativeWith({ category: "gaming" });
    expect(violationsOf(manifest)).toEqual([{ field: "category", rule: "enum" }]);
  });

  it("rejects an unknown model provider", () => {
    const manifest = declarativeWith({ model: { provider: "mistral", model: "large" } });
    expect(violationsOf(manifest)).toEqual([{ field: "model.provider", rule: "enum" }]);
  });

  it.each(["openai", "anthropic"])(
    "requires model.model for the hosted provider %s",
    (provider) => {
      const manifest = declarativeWith({ model: { provider } });
      expect(violationsOf(manifest)).toEqual([{ field: "model.model", rule: "required" }]);
    },
  );

  it("requires model.endpoint_url for a self-hosted model", () => {
    const manifest = declarativeWith({ model: { provider: "self_hosted" } });
    expect(violationsOf(manifest)).toEqual([{ field: "model.endpoint_url", rule: "required" }]);
  });

  it("rejects a plain-http model endpoint", () => {
    const manifest = declarativeWith({
      model: { provider: "self_hosted", endpoint_url: "http://models.example.com/v1" },
    });
    expect(violationsOf(manifest)).toEqual([{ field: "model.endpoint_url", rule: "https" }]);
  });

  it("rejects both a system prompt and an entrypoint", () => {
    const manifest = declarativeWith({ entrypoint_url: "https://agents.example.com/run" });
    expect(violationsOf(manifest)).toEqual([{ field: "system_prompt", rule: "exclusive" }]);
  });

  it("rejects neither a system prompt nor an entrypoint", () => {
    expect(violationsOf(declarativeWithout("system_prompt"))).toEqual([
      { field: "system_prompt", rule: "one_of_required" },
    ]);
  });

  it.each([
    ["http://agents.example.com/run", "https"],
    ["ftp://agents.example.com/run", "https"],
    ["agents.example.com/run", "https"],
    ["https://user:secret@agents.example.com/run", "no_credentials"],
  ])("rejects the entrypoint %j", (entrypoint_url, rule) => {
    const manifest = { ...connectedManifest(), entrypoint_url };
    expect(violationsOf(manifest)).toEqual([{ field: "entrypoint_url", rule }]);
  });

  it("accepts 10 tools and rejects 11 (the 11th repeating one, as it must)", () => {
    expect(violationsOf(declarativeWith({ tools: tools(10) }))).toEqual([]);
    expect(violationsOf(declarativeWith({ tools: tools(11) }))).toEqual([
      { field: "tools", rule: "max_items" },
      { field: "tools[10].name", rule: "duplicate_tool" },
    ]);
  });

  it("rejects a tool scope outside read_only, input_only and repo_scoped", () => {
    const manifest = declarativeWith({
      tools: [...tools(3), { name: "fetch_url", scope: "full_access" }],
    });
    expect(violationsOf(manifest)).toEqual([{ field: "tools[3].scope", rule: "enum" }]);
  });

  it("rejects a tool without a name", () => {
    const manifest = declarativeWith({ tools: [{ scope: "read_only" }] });
    expect(violationsOf(manifest)).toEqual([{ field: "tools[0].name", rule: "required" }]);
  });

  it("rejects a tool that is not built in, naming the ones that are", () => {
    const result = validateManifest(
      declarativeWith({ tools: [{ name: "shell", scope: "read_only" }] }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violations).toEqual([
      {
        field: "tools[0].name",
        rule: "unknown_tool",
        message: `is not a built-in tool; they are: ${TOOL_NAMES.join(", ")}`,
      },
    ]);
    expect(result.violations[0]?.message).toContain("read_repo_file");
  });

  it.each([
    ["fetch_url", "input_only", "read_only"],
    ["read_input", "read_only", "input_only"],
    ["read_repo_file", "read_only", "repo_scoped"],
  ])("rejects %s declared %s: it runs in %s only", (name, scope, ownScope) => {
    const result = validateManifest(declarativeWith({ tools: [{ name, scope }] }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violations).toEqual([
      {
        field: "tools[0].scope",
        rule: "tool_scope",
        message: `must be ${ownScope}, the scope ${name} runs in`,
      },
    ]);
  });

  it("rejects a tool listed twice", () => {
    const manifest = declarativeWith({ tools: [...tools(2), tools(1)[0]] });
    expect(violationsOf(manifest)).toEqual([{ field: "tools[2].name", rule: "duplicate_tool" }]);
  });

  it("accepts tool_domains, optional, as lowercase domain names", () => {
    const result = validateManifest(declarativeWith({ tool_domains: ["api.example.com", "x.io"] }));
    expect(result.ok && result.manifest.tool_domains).toEqual(["api.example.com", "x.io"]);
    const without = validateManifest(declarativeManifest());
    expect(without.ok && "tool_domains" in without.manifest).toBe(false);
  });

  it("rejects tool_domains that are not domain names, or more than 20", () => {
    const domains = ["com", "https://example.com", "Example.com", "*.example.com", "", 7];
    expect(violationsOf(declarativeWith({ tool_domains: domains }))).toEqual([
      { field: "tool_domains[0]", rule: "domain_name" },
      { field: "tool_domains[1]", rule: "domain_name" },
      { field: "tool_domains[2]", rule: "domain_name" },
      { field: "tool_domains[3]", rule: "domain_name" },
      { field: "tool_domains[4]", rule: "min_length" },
      { field: "tool_domains[5]", rule: "type" },
    ]);
    const many = Array.from({ length: 21 }, (_, index) => `host${index}.example.com`);
    expect(violationsOf(declarativeWith({ tool_domains: many }))).toEqual([
      { field: "tool_domains", rule: "max_items" },
    ]);
    expect(violationsOf(declarativeWith({ tool_domains: "example.com" }))).toEqual([
      { field: "tool_domains", rule: "type" },
    ]);
  });

  it("accepts every built-in tool in its own scope", () => {
    const result = validateManifest(declarativeWith({ tools: tools(TOOL_NAMES.length) }));
    expect(result.ok && result.manifest.tools).toEqual(tools(TOOL_NAMES.length));
  });

  it.each([1, 300])("accepts a timeout of %d seconds", (timeout_seconds) => {
    const result = validateManifest(declarativeWith({ timeout_seconds }));
    expect(result.ok && result.manifest.timeout_seconds).toBe(timeout_seconds);
  });

  it.each([
    [301, "max"],
    [0, "min"],
    [1.5, "integer"],
    ["60", "type"],
  ])("rejects a timeout of %j seconds (%s)", (timeout_seconds, rule) => {
    const manifest = declarativeWith({ timeout_seconds });
    expect(violationsOf(manifest)).toEqual([{ field: "timeout_seconds", rule }]);
  });

  describe.each(["input_schema", "output_schema"])("%s", (field) => {
    it.each([
      { type: 5 },
      { required: "x" },
      { type: "string", pattern: "(" },
      { $ref: "#/definitions/missing" },
      { $schema: "http://json-schema.org/draft-04/schema#" },
    ])("rejects the schema %j, which does not compile", (schema) => {
      expect(violationsOf(declarativeWith({ [field]: schema }))).toEqual([
        { field, rule: "json_schema" },
      ]);
    });

    it.each([[[]], ["object"], [true], [null]])("rejects %j, which is not an object", (schema) => {
      expect(violationsOf(declarativeWith({ [field]: schema }))).toEqual([{ field, rule: "type" }]);
    });

    it("tolerates unknown keywords and formats", () => {
      const schema = { type: "string", format: "email", "x-widget": "textarea" };
      expect(violationsOf(declarativeWith({ [field]: schema }))).toEqual([]);
    });
  });

  it("lets every creator use the same schema $id", () => {
    const schema = { $id: "https://example.com/input.json", type: "object" };
    expect(violationsOf(declarativeWith({ input_schema: schema }))).toEqual([]);
    expect(violationsOf(declarativeWith({ input_schema: { ...schema } }))).toEqual([]);
  });

  it("rejects unknown fields, top-level and nested", () => {
    const manifest = declarativeWith({
      price: 5,
      model: { provider: "openai", model: "gpt-5", api_key: "sk-..." },
      tools: [{ name: "fetch_url", scope: "read_only", config: {} }],
    });
    expect(violationsOf(manifest)).toEqual([
      { field: "price", rule: "unknown_field" },
      { field: "model.api_key", rule: "unknown_field" },
      { field: "tools[0].config", rule: "unknown_field" },
    ]);
  });

  it.each([
    ["title", "t".repeat(121), "title", "max_length"],
    ["creator_display_name", "c".repeat(81), "creator_display_name", "max_length"],
    ["sample_output", [], "sample_output", "min_items"],
    ["sample_output", ["a", "b", "c", "d"], "sample_output", "max_items"],
    ["sample_output", ["ok", "s".repeat(2001)], "sample_output[1]", "max_length"],
  ])("checks the listing field %s", (key, value, field, rule) => {
    expect(violationsOf(declarativeWith({ [key]: value }))).toEqual([{ field, rule }]);
  });

  it("reports every violation at once, each with a message", () => {
    const result = validateManifest({
      name: "Code_Bot",
      category: "gaming",
      model: { provider: "self_hosted", endpoint_url: "http://models.example.com" },
      system_prompt: "You review code.",
      entrypoint_url: "https://agents.example.com/run",
      tools: [{ name: "shell", scope: "admin" }],
      input_schema: { type: 5 },
      output_schema: [],
      timeout_seconds: 0,
      vendor: "acme",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violations.map(({ field, rule }) => ({ field, rule }))).toEqual([
      { field: "vendor", rule: "unknown_field" },
      { field: "name", rule: "kebab_case" },
      { field: "category", rule: "enum" },
      { field: "description", rule: "required" },
      { field: "model.endpoint_url", rule: "https" },
      { field: "system_prompt", rule: "exclusive" },
      { field: "tools[0].name", rule: "unknown_tool" },
      { field: "tools[0].scope", rule: "enum" },
      { field: "input_schema", rule: "json_schema" },
      { field: "output_schema", rule: "type" },
      { field: "timeout_seconds", rule: "min" },
    ]);
    for (const violation of result.violations) expect(violation.message).not.toBe("");
  });
});

describe("finding: manifest schemas cannot stall a process", () => {
  /** `levels` levels of objects: `{not: {not: … {}}}`. */
  function nested(levels: number): Record<string, unknown> {
    let schema: Record<string, unknown> = {};
    for (let level = 1; level < levels; level += 1) schema = { not: schema };
    return schema;
  }
  const refsToOneDefinition = (refs: number) => ({
    definitions: { name: { type: "string" } },
    anyOf: Array.from({ length: refs }, () => ({ $ref: "#/definitions/name" })),
  });

  describe.each(["input_schema", "output_schema"])("%s", (field) => {
    it.each([
      ["nests deeper than 32 levels", nested(33), "max_depth"],
      [
        "holds more than 1000 JSON values",
        { enum: Array.from({ length: 999 }, String) },
        "max_size",
      ],
      ["uses $ref more than 100 times", refsToOneDefinition(101), "max_refs"],
    ])("is refused, before it is compiled, when it %s", (_what, schema, rule) => {
      expect(violationsOf(declarativeWith({ [field]: schema }))).toEqual([{ field, rule }]);
    });

    it("is accepted at every limit at once", () => {
      const schema = { ...refsToOneDefinition(100), not: nested(31) };
      expect(violationsOf(declarativeWith({ [field]: schema }))).toEqual([]);
    });
  });

  it("names every pattern the linear-time engine cannot run, by its path", () => {
    const manifest = declarativeWith({
      input_schema: {
        type: "object",
        properties: { email: { type: "string", pattern: "^(\\w+)@\\1$" } },
        patternProperties: { "^(?!internal)": { type: "string" } },
      },
      output_schema: { type: "array", items: { anyOf: [{}, { pattern: "(?<=a)b" }] } },
    });
    expect(violationsOf(manifest)).toEqual([
      { field: "input_schema.patternProperties.^(?!internal)", rule: "linear_regex" },
      { field: "input_schema.properties.email.pattern", rule: "linear_regex" },
      { field: "output_schema.items.anyOf[1].pattern", rule: "linear_regex" },
    ]);
  });

  it("refuses a lookaround the compiler reaches only through $ref, as not compiling", () => {
    const schema = { $ref: "#/x-hidden", "x-hidden": { pattern: "^(?=a)" } };
    expect(violationsOf(declarativeWith({ input_schema: schema }))).toEqual([
      { field: "input_schema", rule: "json_schema" },
    ]);
  });

  it("accepts the patterns JSON Schemas usually hold", () => {
    const patterns = ["^[a-z0-9-]+$", "^\\d{4}-\\d{2}-\\d{2}$", "^caf\\u00e9", "^\\p{Lu}\\w*$", ""];
    const schema = {
      type: "object",
      properties: Object.fromEntries(patterns.map((pattern, index) => [`p${index}`, { pattern }])),
    };
    expect(violationsOf(declarativeWith({ input_schema: schema }))).toEqual([]);
  });
});
