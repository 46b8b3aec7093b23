import { unsupportedPatternReason } from "./linearRegExp.ts";

export type PatternViolation = { field: string; rule: "linear_regex"; message: string };

const ONE_SUBSCHEMA = [
  "additionalItems",
  "additionalProperties",
  "contains",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "items", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS = [
  "$defs",
  "definitions",
  "dependencies",
  "dependentSchemas",
  "patternProperties",
  "properties",
];

/**
 * Every `pattern` and `patternProperties` key in `schema` that the linear-time engine refuses,
 * named by its dotted path under `field` (`input_schema.properties.email.pattern`). Walks the
 * keywords that hold subschemas; `schema` is within `SCHEMA_LIMITS`, so the recursion is shallow.
 */
export function unsupportedPatterns(schema: unknown, field: string): PatternViolation[] {
  if (!isObject(schema)) return [];
  const violations: PatternViolation[] = [];
  const check = (pattern: string, path: string) => {
    const reason = unsupportedPatternReason(pattern);
    if (reason !== undefined) {
      violations.push({
        field: path,
        rule: "linear_regex",
        message: `must be a pattern the linear-time engine (RE2) supports, without backreferences or lookaround: ${reason}`,
      });
    }
  };

  if (typeof schema.pattern === "string") check(schema.pattern, `${field}.pattern`);
  if (isObject(schema.patternProperties)) {
    for (const key of Object.keys(schema.patternProperties)) {
      check(key, `${field}.patternProperties.${key}`);
    }
  }
  for (const keyword of ONE_SUBSCHEMA) {
    violations.push(...unsupportedPatterns(schema[keyword], `${field}.${keyword}`));
  }
  for (const keyword of SUBSCHEMA_LISTS) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    list.forEach((subschema, index) => {
      violations.push(...unsupportedPatterns(subschema, `${field}.${keyword}[${index}]`));
    });
  }
  for (const keyword of SUBSCHEMA_MAPS) {
    const map = schema[keyword];
    if (!isObject(map)) continue;
    for (const [key, subschema] of Object.entries(map)) {
      violations.push(...unsupportedPatterns(subschema, `${field}.${keyword}.${key}`));
    }
  }
  return violations;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
