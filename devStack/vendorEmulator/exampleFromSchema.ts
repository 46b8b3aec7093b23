import type { JsonSchema } from "./chatRequest.ts";
import { isRecord } from "./isRecord.ts";

type Schema = Record<string, unknown>;

/** Deeper than this, a (self-referencing) schema gets `null`: the example stays finite. */
const MAX_DEPTH = 16;

const FORMAT_EXAMPLES: Record<string, string> = {
  "date-time": "2024-01-01T00:00:00Z",
  date: "2024-01-01",
  time: "00:00:00Z",
  email: "user@example.com",
  uri: "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
};

/**
 * A value that validates against `schema`: the emulator's default structured answer. It covers
 * what structured-output schemas use (`type`, `properties` with `required`, `items` with
 * `minItems`, `enum`, `const`, string lengths and common formats, numeric bounds and `multipleOf`,
 * `anyOf`/`oneOf`/`allOf`, local `$ref`s), not `pattern`, `not`, `if` or `uniqueItems`.
 */
export function exampleFromSchema(schema: JsonSchema): unknown {
  return exampleOf(schema, schema, 0);
}

function exampleOf(schema: unknown, root: JsonSchema, depth: number): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return null;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (typeof schema.$ref === "string") {
    return exampleOf(resolveLocalRef(root, schema.$ref), root, depth + 1);
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return exampleOf(alternatives[0], root, depth + 1);
  }
  if (Array.isArray(schema.allOf)) return exampleOf(mergeAllOf(schema), root, depth + 1);

  switch (typeOf(schema)) {
    case "object":
      return objectExample(schema, root, depth);
    case "array":
      return arrayExample(schema, root, depth);
    case "string":
      return stringExample(schema);
    case "integer":
      return numberExample(schema, true);
    case "number":
      return numberExample(schema, false);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return "example";
  }
}

function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.find((name) => name !== "null") ?? type[0];
  if (isRecord(schema.properties) || Array.isArray(schema.required)) return "object";
  if (schema.items !== undefined) return "array";
  return undefined;
}

/** `#/$defs/Name`-style references; anything else (remote, anchors) resolves to nothing. */
function resolveLocalRef(root: JsonSchema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let target: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~");
    target = isRecord(target) ? target[key] : undefined;
  }
  return target;
}

function mergeAllOf({ allOf, ...rest }: Schema): Schema {
  const parts = [rest, ...(allOf as unknown[]).filter(isRecord)];
  const merged: Schema = Object.assign({}, ...parts);
  merged.properties = Object.assign({}, ...parts.map((part) => part.properties ?? {}));
  merged.required = [...new Set(parts.flatMap((part) => (part.required as string[]) ?? []))];
  return merged;
}

function objectExample(schema: Schema, root: JsonSchema, depth: number): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const names = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const minProperties = typeof schema.minProperties === "number" ? schema.minProperties : 0;
  const optional = Object.keys(properties).filter((name) => !names.includes(name));
  const chosen = [...names, ...optional.slice(0, Math.max(0, minProperties - names.length))];

  const example: Record<string, unknown> = {};
  for (const name of chosen) {
    const propertySchema = properties[name] ?? schema.additionalProperties ?? {};
    example[name] = exampleOf(propertySchema, root, depth + 1);
  }
  return example;
}

function arrayExample(schema: Schema, root: JsonSchema, depth: number): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const minItems = typeof schema.minItems === "number" ? schema.minItems : 0;
  const length = Math.max(minItems, prefix.length);
  return Array.from({ length }, (_, index) =>
    exampleOf(prefix[index] ?? schema.items ?? {}, root, depth + 1),
  );
}

function stringExample(schema: Schema): string {
  const formatted = typeof schema.format === "string" ? FORMAT_EXAMPLES[schema.format] : undefined;
  if (formatted) return formatted;
  const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
  const maxLength =
    typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  const padded = "example".padEnd(minLength, "x");
  return padded.slice(0, maxLength);
}

function numberExample(schema: Schema, integer: boolean): number {
  const numeric = (value: unknown) => (typeof value === "number" ? value : undefined);
  const minimum = numeric(schema.minimum) ?? Number.NEGATIVE_INFINITY;
  const maximum = numeric(schema.maximum) ?? Number.POSITIVE_INFINITY;
  const exclusiveMinimum = numeric(schema.exclusiveMinimum) ?? Number.NEGATIVE_INFINITY;
  const exclusiveMaximum = numeric(schema.exclusiveMaximum) ?? Number.POSITIVE_INFINITY;
  const multipleOf = numeric(schema.multipleOf);

  const fits = (value: number) =>
    Number.isFinite(value) &&
    value >= minimum &&
    value <= maximum &&
    value > exclusiveMinimum &&
    value < exclusiveMaximum &&
    (!integer || Number.isInteger(value)) &&
    (multipleOf === undefined || Number.isInteger(value / multipleOf));

  const low = Math.max(minimum, exclusiveMinimum);
  const high = Math.min(maximum, exclusiveMaximum);
  const step = multipleOf ?? 1;
  const candidates = [
    0,
    low,
    high,
    Math.ceil(low / step) * step,
    (Math.floor(low / step) + 1) * step,
    Math.floor(high / step) * step,
    (Math.ceil(high / step) - 1) * step,
    (low + high) / 2,
    low + 1,
    high - 1,
  ];
  return candidates.find(fits) ?? (Number.isFinite(low) ? low : 0);
}
