/**
 * What a manifest's JSON Schema may cost to compile. Ajv's code generation grows faster than the
 * schema (a thousand properties take a second, two thousand overflow its stack), so schemas are
 * bounded by what compiling them costs: values, nesting and references, not bytes (a long
 * `description` costs nothing; the manifest's 64 KB bounds bytes).
 */
export const SCHEMA_LIMITS = {
  /** Every JSON value in the schema counts: objects, arrays, strings, numbers, booleans, nulls. */
  maxValues: 1_000,
  /** Levels of objects and arrays; also the limit for every other field of a manifest. */
  maxDepth: 32,
  maxRefs: 100,
} as const;

export type SchemaLimitViolation = { rule: "max_size" | "max_depth" | "max_refs"; message: string };

/**
 * The depth limit alone, for any manifest field before anything walks, copies or serialises it:
 * cheap, and safe for a value nested thousands of levels deep (a 64 KB body can be).
 */
export function depthLimitViolation(value: unknown): SchemaLimitViolation | undefined {
  const { maxDepth } = SCHEMA_LIMITS;
  if (!nestsDeeperThan(value, maxDepth)) return undefined;
  return { rule: "max_depth", message: `must nest at most ${maxDepth} levels deep` };
}

/** True when `value` nests objects and arrays more than `maxDepth` levels deep; stops there. */
function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  // Iterative: the input may nest thousands of levels, deeper than the call stack.
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/** The first limit `schema` exceeds (depth, then values and references), or undefined. */
export function schemaLimitViolation(schema: object): SchemaLimitViolation | undefined {
  const { maxValues, maxRefs } = SCHEMA_LIMITS;
  const tooDeep = depthLimitViolation(schema);
  if (tooDeep !== undefined) return tooDeep;
  let values = 0;
  let refs = 0;
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const item = pending.pop();
    values += 1;
    if (values > maxValues) {
      return {
        rule: "max_size",
        message: `must have at most ${maxValues} JSON values (objects, arrays and scalars)`,
      };
    }
    if (item === null || typeof item !== "object") continue;
    for (const [key, child] of Object.entries(item)) {
      if (key === "$ref" && typeof child === "string") refs += 1;
      pending.push(child);
    }
    if (refs > maxRefs) {
      return { rule: "max_refs", message: `must use $ref at most ${maxRefs} times` };
    }
  }
  return undefined;
}
