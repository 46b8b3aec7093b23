import { describe, expect, it } from "vitest";
import { compileSchema } from "./compileInputValidator.ts";
import { SCHEMA_COMPILE_BUDGET_MS } from "./manifestValidationThreads.ts";
import { depthLimitViolation, SCHEMA_LIMITS, schemaLimitViolation } from "./schemaLimits.ts";

/** A schema nesting `levels` levels of objects: `{not: {not: … {}}}`. */
function nested(levels: number): object {
  let schema: object = {};
  for (let level = 1; level < levels; level += 1) schema = { not: schema };
  return schema;
}

/** A schema of exactly `values` JSON values: an object holding `values - 2` numbers in `enum`. */
function withValues(values: number): object {
  return { enum: Array.from({ length: values - 2 }, (_, index) => index) };
}

/** 300 `$ref`s to one large definition: what took 30 s and 860 MB to compile with refs inlined. */
function manyRefsToOneLargeDefinition(refs: number, definitionProperties = 40) {
  const properties = (count: number, make: (index: number) => object) =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, make(index)]));
  return {
    type: "object",
    definitions: {
      large: {
        type: "object",
        properties: properties(definitionProperties, () => ({ type: "string", maxLength: 10 })),
      },
    },
    properties: properties(refs, () => ({ $ref: "#/definitions/large" })),
  };
}

describe("schemaLimitViolation", () => {
  it(`allows ${SCHEMA_LIMITS.maxDepth} levels of nesting and refuses one more`, () => {
    expect(schemaLimitViolation(nested(SCHEMA_LIMITS.maxDepth))).toBeUndefined();
    expect(schemaLimitViolation(nested(SCHEMA_LIMITS.maxDepth + 1))).toEqual({
      rule: "max_depth",
      message: "must nest at most 32 levels deep",
    });
  });

  it(`allows ${SCHEMA_LIMITS.maxValues} JSON values and refuses one more`, () => {
    expect(schemaLimitViolation(withValues(SCHEMA_LIMITS.maxValues))).toBeUndefined();
    expect(schemaLimitViolation(withValues(SCHEMA_LIMITS.maxValues + 1))).toEqual({
      rule: "max_size",
      message: "must have at most 1000 JSON values (objects, arrays and scalars)",
    });
  });

  it(`allows ${SCHEMA_LIMITS.maxRefs} $refs and refuses one more`, () => {
    expect(
      schemaLimitViolation(manyRefsToOneLargeDefinition(SCHEMA_LIMITS.maxRefs)),
    ).toBeUndefined();
    expect(schemaLimitViolation(manyRefsToOneLargeDefinition(SCHEMA_LIMITS.maxRefs + 1))).toEqual({
      rule: "max_refs",
      message: "must use $ref at most 100 times",
    });
  });

  it("counts values, not bytes: a long description costs nothing to compile", () => {
    expect(
      schemaLimitViolation({ type: "string", description: "d".repeat(60_000) }),
    ).toBeUndefined();
  });
});

describe("finding: manifest schemas cannot stall a process (limits)", () => {
  it("refuses the 300-$ref schema by its references", () => {
    expect(schemaLimitViolation(manyRefsToOneLargeDefinition(300))).toMatchObject({
      rule: "max_refs",
    });
  });

  it("would compile it anyway in milliseconds and megabytes: references are calls, not copies", () => {
    // With Ajv's default of inlining references this took about 30 s and 860 MB.
    const heapBefore = process.memoryUsage().heapUsed;
    const startedAt = performance.now();
    const validate = compileSchema(manyRefsToOneLargeDefinition(300));
    expect(performance.now() - startedAt).toBeLessThan(SCHEMA_COMPILE_BUDGET_MS);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
    expect(validate({ p0: { p0: "too long for ten" } })).toBe(false);
  });

  it("measures a value nested 30,000 levels deep without overflowing the stack", () => {
    const deep = JSON.parse(`${"[".repeat(30_000)}${"]".repeat(30_000)}`);
    expect(depthLimitViolation(deep)).toMatchObject({ rule: "max_depth" });
    expect(schemaLimitViolation({ items: deep })).toMatchObject({ rule: "max_depth" });
  });

  it("stops counting at the limit, whatever the schema's width", () => {
    expect(schemaLimitViolation(withValues(30_000))).toMatchObject({ rule: "max_size" });
  });
});
