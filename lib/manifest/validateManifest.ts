import { Ajv } from "ajv";
import { CATEGORIES } from "../marketplace/vocabulary.ts";
import { compileSchema, SCHEMA_COMPILER_OPTIONS } from "./compileInputValidator.ts";
import {
  DEFAULT_TIMEOUT_SECONDS,
  type JsonObject,
  KEBAB_CASE,
  MAX_SAMPLE_OUTPUTS,
  MAX_SYSTEM_PROMPT_LENGTH,
  MAX_TIMEOUT_SECONDS,
  MAX_TITLE_LENGTH,
  MAX_TOOL_DOMAINS,
  MAX_TOOLS,
  MAX_URL_LENGTH,
  type Manifest,
  MODEL_PROVIDERS,
  type ModelProvider,
  TOOL_SCOPES,
} from "./manifestShape.ts";
import { schemaLimitViolation } from "./schemaLimits.ts";
import { unsupportedPatterns } from "./schemaPatterns.ts";
import { isToolName, TOOL_CATALOG, TOOL_NAMES, type ToolName } from "./toolCatalog.ts";

/** `field` is a dotted path (`model.endpoint_url`, `tools[3].scope`); `manifest` is the whole input. */
export type ManifestViolation = { field: string; rule: string; message: string };

export type ManifestValidation =
  | { ok: true; manifest: Manifest }
  | { ok: false; violations: ManifestViolation[] };

/** A lowercase DNS name of at least two labels: "com" alone would open a whole top-level domain. */
const DOMAIN_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const HOSTED_PROVIDERS: readonly ModelProvider[] = ["openai", "anthropic"];

const MANIFEST_FIELDS = [
  "name",
  "category",
  "description",
  "model",
  "system_prompt",
  "entrypoint_url",
  "tools",
  "tool_domains",
  "input_schema",
  "output_schema",
  "timeout_seconds",
  "title",
  "sample_output",
  "creator_display_name",
];

type Report = (field: string, rule: string, message: string) => void;

export type ValidateManifestOptions = {
  /** Called as the check of a schema field (the costly part: compiling it) begins. */
  onSchemaCheck?: (field: "input_schema" | "output_schema") => void;
};

/** Checks a submitted manifest against the spec, reporting every violation rather than the first. */
export function validateManifest(
  input: unknown,
  { onSchemaCheck }: ValidateManifestOptions = {},
): ManifestValidation {
  const violations: ManifestViolation[] = [];
  const report: Report = (field, rule, message) => violations.push({ field, rule, message });

  if (!isJsonObject(input)) {
    report("manifest", "type", "must be a JSON object");
    return { ok: false, violations };
  }
  rejectUnknownFields(report, input, MANIFEST_FIELDS);

  const name = readString(report, "name", input.name, { required: true, maxLength: 64 });
  if (name !== undefined && !KEBAB_CASE.test(name)) {
    report("name", "kebab_case", "must be lowercase letters and digits joined by single hyphens");
  }
  const category = readEnum(report, "category", input.category, CATEGORIES, { required: true });
  const description = readString(report, "description", input.description, {
    required: true,
    maxLength: 2000,
  });
  const model = readModel(report, input.model);
  checkOneInstructionSource(report, input);
  const system_prompt = readString(report, "system_prompt", input.system_prompt, {
    maxLength: MAX_SYSTEM_PROMPT_LENGTH,
  });
  const entrypoint_url = readHttpsUrl(report, "entrypoint_url", input.entrypoint_url);
  const tools = readTools(report, input.tools);
  const tool_domains = readToolDomains(report, input.tool_domains);
  onSchemaCheck?.("input_schema");
  const input_schema = readJsonSchema(report, "input_schema", input.input_schema);
  onSchemaCheck?.("output_schema");
  const output_schema = readJsonSchema(report, "output_schema", input.output_schema);
  const timeout_seconds = readTimeout(report, input.timeout_seconds);
  const title = readString(report, "title", input.title, { maxLength: MAX_TITLE_LENGTH });
  const sample_output = readSampleOutput(report, input.sample_output);
  const creator_display_name = readString(
    report,
    "creator_display_name",
    input.creator_display_name,
    { maxLength: 80 },
  );

  // Every reader that returns undefined for a required field has reported why; the explicit
  // checks are for the compiler, and fail closed should that ever stop being true.
  if (
    violations.length > 0 ||
    name === undefined ||
    category === undefined ||
    description === undefined ||
    model === undefined ||
    input_schema === undefined ||
    output_schema === undefined ||
    timeout_seconds === undefined
  ) {
    return { ok: false, violations };
  }
  return {
    ok: true,
    manifest: {
      name,
      category,
      description,
      model,
      ...(system_prompt !== undefined && { system_prompt }),
      ...(entrypoint_url !== undefined && { entrypoint_url }),
      ...(tools !== undefined && { tools }),
      ...(tool_domains !== undefined && { tool_domains }),
      input_schema,
      output_schema,
      timeout_seconds,
      ...(title !== undefined && { title }),
      ...(sample_output !== undefined && { sample_output }),
      ...(creator_display_name !== undefined && { creator_display_name }),
    },
  };
}

function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function rejectUnknownFields(
  report: Report,
  object: JsonObject,
  allowed: readonly string[],
  prefix = "",
) {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      report(`${prefix}${key}`, "unknown_field", "is not a manifest field");
    }
  }
}

function readString(
  report: Report,
  field: string,
  value: unknown,
  { required = false, maxLength }: { required?: boolean; maxLength: number },
): string | undefined {
  if (value === undefined) {
    if (required) report(field, "required", "is required");
    return undefined;
  }
  if (typeof value !== "string") {
    report(field, "type", "must be a string");
    return undefined;
  }
  if (value.length === 0) {
    report(field, "min_length", "must not be empty");
    return undefined;
  }
  if (value.length > maxLength) {
    report(field, "max_length", `must be at most ${maxLength} characters`);
    return undefined;
  }
  return value;
}

function readEnum<T extends string>(
  report: Report,
  field: string,
  value: unknown,
  allowed: readonly T[],
  { required = false }: { required?: boolean } = {},
): T | undefined {
  if (value === undefined) {
    if (required) report(field, "required", "is required");
    return undefined;
  }
  const match = allowed.find((option) => option === value);
  if (match === undefined) report(field, "enum", `must be one of: ${allowed.join(", ")}`);
  return match;
}

/** Endpoints the marketplace calls with renters' data: HTTPS only, and no secrets in the URL. */
function readHttpsUrl(
  report: Report,
  field: string,
  value: unknown,
  { required = false }: { required?: boolean } = {},
): string | undefined {
  const text = readString(report, field, value, { required, maxLength: MAX_URL_LENGTH });
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    report(field, "https", "must be an absolute https:// URL");
    return undefined;
  }
  if (url.protocol !== "https:" || url.hostname === "") {
    report(field, "https", "must be an https:// URL with a host");
    return undefined;
  }
  if (url.username !== "" || url.password !== "") {
    report(field, "no_credentials", "must not carry credentials (user:password@)");
    return undefined;
  }
  return text;
}

function readModel(report: Report, value: unknown): Manifest["model"] | undefined {
  if (value === undefined) {
    report("model", "required", "is required");
    return undefined;
  }
  if (!isJsonObject(value)) {
    report("model", "type", "must be an object");
    return undefined;
  }
  rejectUnknownFields(report, value, ["provider", "model", "endpoint_url"], "model.");
  const provider = readEnum(report, "model.provider", value.provider, MODEL_PROVIDERS, {
    required: true,
  });
  const isHosted = provider !== undefined && HOSTED_PROVIDERS.includes(provider);
  const model = readString(report, "model.model", value.model, {
    required: isHosted,
    maxLength: 200,
  });
  const endpoint_url = readHttpsUrl(report, "model.endpoint_url", value.endpoint_url, {
    required: provider === "self_hosted",
  });
  if (provider === undefined) return undefined;
  return {
    provider,
    ...(model !== undefined && { model }),
    ...(endpoint_url !== undefined && { endpoint_url }),
  };
}

/** A declarative agent runs on its system prompt, a connected one at its entrypoint: exactly one. */
function checkOneInstructionSource(report: Report, input: JsonObject) {
  const hasPrompt = input.system_prompt !== undefined;
  const hasEntrypoint = input.entrypoint_url !== undefined;
  if (hasPrompt && hasEntrypoint) {
    report("system_prompt", "exclusive", "declare system_prompt or entrypoint_url, not both");
  } else if (!hasPrompt && !hasEntrypoint) {
    report("system_prompt", "one_of_required", "declare system_prompt or entrypoint_url");
  }
}

function readTools(report: Report, value: unknown): Manifest["tools"] {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    report("tools", "type", "must be an array");
    return undefined;
  }
  if (value.length > MAX_TOOLS) {
    report("tools", "max_items", `must have at most ${MAX_TOOLS} tools`);
  }
  const tools: NonNullable<Manifest["tools"]> = [];
  const listed = new Set<string>();
  value.forEach((tool: unknown, index) => {
    const field = `tools[${index}]`;
    if (!isJsonObject(tool)) {
      report(field, "type", "must be an object with name and scope");
      return;
    }
    rejectUnknownFields(report, tool, ["name", "scope"], `${field}.`);
    const name = readToolName(report, `${field}.name`, tool.name, listed);
    const scope = readEnum(report, `${field}.scope`, tool.scope, TOOL_SCOPES, { required: true });
    if (name === undefined || scope === undefined) return;
    const ownScope = TOOL_CATALOG[name].scope;
    if (scope !== ownScope) {
      report(`${field}.scope`, "tool_scope", `must be ${ownScope}, the scope ${name} runs in`);
      return;
    }
    tools.push({ name, scope });
  });
  return tools;
}

function readToolDomains(report: Report, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    report("tool_domains", "type", "must be an array of domain names");
    return undefined;
  }
  if (value.length > MAX_TOOL_DOMAINS) {
    report("tool_domains", "max_items", `must have at most ${MAX_TOOL_DOMAINS} domains`);
  }
  return value.flatMap((domain: unknown, index) => {
    const field = `tool_domains[${index}]`;
    const name = readString(report, field, domain, { maxLength: 253 });
    if (name === undefined) return [];
    if (!DOMAIN_NAME.test(name)) {
      report(
        field,
        "domain_name",
        'must be a lowercase domain name of two labels or more, like "api.example.com"',
      );
      return [];
    }
    return [name];
  });
}

/** A built-in tool's name (lib/manifest/toolCatalog.ts), not one `listed` before it. */
function readToolName(
  report: Report,
  field: string,
  value: unknown,
  listed: Set<string>,
): ToolName | undefined {
  const name = readString(report, field, value, { required: true, maxLength: 64 });
  if (name === undefined) return undefined;
  if (!isToolName(name)) {
    report(field, "unknown_tool", `is not a built-in tool; they are: ${TOOL_NAMES.join(", ")}`);
    return undefined;
  }
  if (listed.has(name)) {
    report(field, "duplicate_tool", `names ${name}, which an earlier entry already lists`);
    return undefined;
  }
  listed.add(name);
  return name;
}

function readSampleOutput(report: Report, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    report("sample_output", "type", "must be an array of strings");
    return undefined;
  }
  if (value.length === 0) report("sample_output", "min_items", "must have at least one sample");
  if (value.length > MAX_SAMPLE_OUTPUTS) {
    report("sample_output", "max_items", `must have at most ${MAX_SAMPLE_OUTPUTS} samples`);
  }
  return value.flatMap((sample: unknown, index) => {
    const text = readString(report, `sample_output[${index}]`, sample, { maxLength: 2000 });
    return text === undefined ? [] : [text];
  });
}

function readTimeout(report: Report, value: unknown): number | undefined {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  if (typeof value !== "number") {
    report("timeout_seconds", "type", "must be a number of seconds");
  } else if (!Number.isInteger(value)) {
    report("timeout_seconds", "integer", "must be a whole number of seconds");
  } else if (value < 1) {
    report("timeout_seconds", "min", "must be at least 1");
  } else if (value > MAX_TIMEOUT_SECONDS) {
    report("timeout_seconds", "max", `must be at most ${MAX_TIMEOUT_SECONDS}`);
  } else {
    return value;
  }
  return undefined;
}

function readJsonSchema(report: Report, field: string, value: unknown): JsonObject | undefined {
  if (value === undefined) {
    report(field, "required", "is required");
    return undefined;
  }
  if (!isJsonObject(value)) {
    report(field, "type", "must be a JSON Schema object");
    return undefined;
  }
  // Bounded before anything reads the schema whole: what follows costs with its size.
  const overLimit = schemaLimitViolation(value);
  if (overLimit !== undefined) {
    report(field, overLimit.rule, overLimit.message);
    return undefined;
  }
  const invalid = metaSchemaProblem(value);
  if (invalid !== undefined) {
    report(field, "json_schema", `is not a valid JSON Schema: ${invalid}`);
    return undefined;
  }
  const patterns = unsupportedPatterns(value, field);
  for (const violation of patterns) report(violation.field, violation.rule, violation.message);
  if (patterns.length > 0) return undefined;
  const uncompilable = compileProblem(value);
  if (uncompilable !== undefined) {
    report(field, "json_schema", `is not a valid JSON Schema: ${uncompilable}`);
    return undefined;
  }
  return value;
}

const DRAFT_07 = /^http:\/\/json-schema\.org\/draft-07\/schema#?$/;

// Checking a schema against the meta-schema leaves no state behind, so one instance (whose compiled
// meta-schema is the expensive part) serves every manifest.
const metaSchemaChecker = new Ajv(SCHEMA_COMPILER_OPTIONS);

function metaSchemaProblem(schema: JsonObject): string | undefined {
  // Ajv's default dialect; pinning it keeps creators' `$schema` lookups off the shared instance.
  const dialect = schema.$schema;
  if (dialect !== undefined && !(typeof dialect === "string" && DRAFT_07.test(dialect))) {
    return "$schema must be http://json-schema.org/draft-07/schema#";
  }
  try {
    if (metaSchemaChecker.validateSchema(schema)) return undefined;
    return metaSchemaChecker.errorsText(metaSchemaChecker.errors, { dataVar: "schema" });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function compileProblem(schema: JsonObject): string | undefined {
  try {
    compileSchema(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
