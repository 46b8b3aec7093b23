import { afterEach, describe, expect, it } from "vitest";
import {
  type ManifestValidationThreads,
  startManifestValidationThreads,
} from "./manifestValidationThreads.ts";
import { validateManifest } from "./validateManifest.ts";

function manifest(input_schema: unknown): Record<string, unknown> {
  return {
    name: "thread-probe",
    category: "coding",
    description: "Checks schemas.",
    model: { provider: "openai", model: "gpt-5" },
    system_prompt: "You check.",
    input_schema,
    output_schema: { type: "string" },
  };
}

/**
 * Within every limit, yet slow to check: 300 patterns near the size limit, each compiled by RE2
 * (most of a second in all, warm, on the machine these tests were written on).
 */
const slowSchema = {
  type: "object",
  properties: Object.fromEntries(
    Array.from({ length: 300 }, (_, index) => [
      `p${index}`,
      { type: "string", pattern: `(\\p{L}|\\p{N}){${300 - (index % 100)}}` },
    ]),
  ),
};

let threads: ManifestValidationThreads | undefined;
afterEach(async () => {
  await threads?.close();
  threads = undefined;
});

describe("startManifestValidationThreads", () => {
  it("answers what validateManifest answers, accepted or rejected", async () => {
    threads = startManifestValidationThreads({ threads: 2 });
    const valid = manifest({ type: "object", properties: { diff: { type: "string" } } });
    const invalid = manifest({ type: "object", properties: { diff: { pattern: "^(a)\\1$" } } });
    expect(await threads.validate(valid)).toEqual(validateManifest(valid));
    expect(await threads.validate(invalid)).toEqual(validateManifest(invalid));
    expect(await threads.validate(invalid)).toMatchObject({
      ok: false,
      violations: [{ field: "input_schema.properties.diff.pattern", rule: "linear_regex" }],
    });
  });

  it("queues validations beyond its threads and answers each", async () => {
    threads = startManifestValidationThreads({ threads: 1 });
    const names = ["one", "two", "three"];
    const results = await Promise.all(
      names.map((name) => threads?.validate({ ...manifest({ type: "object" }), name })),
    );
    expect(results.map((result) => result?.ok && result.manifest.name)).toEqual(names);
  });
});

describe("finding: manifest schemas cannot stall a process (time budget)", () => {
  it("terminates a schema over its budget and rejects it, naming the schema and the budget", async () => {
    threads = startManifestValidationThreads({ threads: 1, compileBudgetMs: 100 });
    expect(await threads.validate(manifest(slowSchema))).toEqual({
      ok: false,
      violations: [
        {
          field: "input_schema",
          rule: "compile_timeout",
          message: "did not compile within 100 ms",
        },
      ],
    });
    // The terminated thread is replaced: the next manifest is checked as usual.
    expect(await threads.validate(manifest({ type: "object" }))).toMatchObject({ ok: true });
  });

  it("keeps the caller's event loop free while a schema compiles", async () => {
    threads = startManifestValidationThreads({ threads: 1, compileBudgetMs: 60_000 });
    await threads.validate(manifest({ type: "object" }));
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 1);
    const validation = await threads.validate(manifest(slowSchema));
    clearInterval(ticker);
    expect(validation.ok).toBe(true);
    // Compiled here, the loop would not have turned once until the end.
    expect(ticks).toBeGreaterThan(10);
  });
});

describe("checking values against creator schemas on the threads", () => {
  const findings = {
    type: "object",
    properties: { findings: { type: "array", items: { type: "object", required: ["line"] } } },
  };

  it("answers what compileInputValidator answers, with paths from the value's root", async () => {
    threads = startManifestValidationThreads({ threads: 1 });
    const check = (value: unknown) =>
      threads?.check({ cacheKey: "0xlisting", schema: findings, value, root: "output" });
    expect(await check({ findings: [{ line: 1 }] })).toEqual({ ok: true });
    expect(await check({ findings: [{ line: 1 }, {}] })).toEqual({
      ok: false,
      mismatch: { path: "output.findings[1].line", message: "is required" },
    });
  });

  it("compiles a schema again when the one under its key changed", async () => {
    threads = startManifestValidationThreads({ threads: 1 });
    const check = (schema: object) =>
      threads?.check({ cacheKey: "0xlisting", schema, value: "text", root: "output" });
    expect(await check({ type: "string" })).toEqual({ ok: true });
    expect(await check({ type: "integer" })).toEqual({
      ok: false,
      mismatch: { path: "output", message: "must be integer" },
    });
  });

  it("keeps the compiled schema: a second check of a slow schema takes a fraction of the first", async () => {
    threads = startManifestValidationThreads({ threads: 1 });
    const check = () =>
      threads?.check({ cacheKey: "0xslow", schema: slowSchema, value: {}, root: "output" });
    const first = performance.now();
    expect(await check()).toEqual({ ok: true });
    const compiling = performance.now() - first;
    const second = performance.now();
    expect(await check()).toEqual({ ok: true });
    expect(performance.now() - second).toBeLessThan(compiling / 4);
  });

  it("keeps the caller's event loop free while a schema compiles for a check", async () => {
    threads = startManifestValidationThreads({ threads: 1 });
    await threads.check({ cacheKey: "0xwarm", schema: {}, value: 1, root: "output" });
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 1);
    const checked = await threads.check({
      cacheKey: "0xslow",
      schema: slowSchema,
      value: {},
      root: "output",
    });
    clearInterval(ticker);
    expect(checked).toEqual({ ok: true });
    expect(ticks).toBeGreaterThan(10);
  });

  it("terminates a check over its budget and answers that the value could not be checked", async () => {
    threads = startManifestValidationThreads({ threads: 1, checkBudgetMs: 50 });
    expect(
      await threads.check({ cacheKey: "0xslow", schema: slowSchema, value: {}, root: "output" }),
    ).toEqual({
      ok: false,
      mismatch: {
        path: "output",
        message: "could not be checked against output_schema within 50 ms",
      },
    });
    // The terminated thread is replaced: the next check is answered as usual.
    expect(
      await threads.check({
        cacheKey: "0xtext",
        schema: { type: "string" },
        value: "x",
        root: "output",
      }),
    ).toEqual({ ok: true });
  });
});
