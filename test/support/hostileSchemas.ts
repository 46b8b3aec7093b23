// JSON Schemas built to make registration expensive, as a hostile creator would submit them.

const properties = (count: number, make: (index: number) => object) =>
  Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, make(index)]));

/**
 * About 12 KB: `refs` references to one definition of 40 properties. With references inlined, 300
 * of them took 30 s and 860 MB to compile.
 */
export function manyRefsToOneLargeDefinition(refs: number) {
  return {
    type: "object",
    definitions: {
      large: {
        type: "object",
        properties: properties(40, () => ({ type: "string", maxLength: 9 })),
      },
    },
    properties: properties(refs, () => ({ $ref: "#/definitions/large" })),
  };
}

/** `{items: {items: … {}}}`, `levels` levels of objects deep. */
export function deeplyNested(levels: number): object {
  let schema: object = {};
  for (let level = 1; level < levels; level += 1) schema = { items: schema };
  return schema;
}

/**
 * A manifest, as JSON text, whose `input_schema` nests arrays `levels` deep: too deep for
 * `JSON.stringify` to write (or any recursive walk to read), yet 20 KB for 10,000 levels.
 */
export function manifestWithArraysNested(
  manifest: Record<string, unknown>,
  levels: number,
): string {
  const schema = `{"items":${"[".repeat(levels)}${"]".repeat(levels)}}`;
  return JSON.stringify({ ...manifest, input_schema: "SCHEMA" }).replace('"SCHEMA"', schema);
}

/**
 * Within every limit, yet slow to check: 300 patterns, each near the largest program the regex
 * engine accepts. Most of a second of compiling on the machine these tests were written on.
 */
export function slowToCompile() {
  return {
    type: "object",
    properties: properties(300, (index) => ({
      type: "string",
      pattern: `(\\p{L}|\\p{N}){${300 - (index % 100)}}`,
    })),
  };
}

/**
 * Within every limit (a few dozen values), yet slow to check: at each level of the nested arrays in
 * `tree` the first branch checks the whole level below before failing on `contains`, and the second
 * checks it again, so a check costs 2^depth. A tree 23 arrays deep takes about a second here, 31 deep
 * (what an input nested 32 levels may hold) minutes.
 */
export function slowToCheck() {
  const node = { $ref: "#/$defs/node" };
  return {
    type: "object",
    properties: { tree: node },
    $defs: { node: { anyOf: [{ items: node, contains: { const: "never" } }, { items: node }] } },
  };
}

/** `{tree: [[[…]]]}`, `levels` arrays deep: what `slowToCheck()` takes 2^levels steps over. */
export function slowInput(levels: number): object {
  let tree: unknown = [];
  for (let level = 1; level < levels; level += 1) tree = [tree];
  return { tree };
}
