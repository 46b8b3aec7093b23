import { afterEach, describe, expect, it } from "vitest";
import { QueueRefusal } from "./fairQueue.ts";
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

/** Quick to compile, 2^depth to check (`slowToCheck` in test/support/hostileSchemas.ts). */
const slowToCheck = {
  anyOf: [{ items: { $ref: "#" }, contains: { const: "never" } }, { items: { $ref: "#" } }],
};
/** Arrays 30 deep: minutes to check against `slowToCheck`. */
const slowInput = JSON.parse(`${"[".repeat(30)}${"]".repeat(30)}`);

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

describe("validateInput", () => {
  const reviewInput = {
    type: "object",
    properties: { diff: { type: "string" } },
    required: ["diff"],
  };

  it("answers what compileInputValidator answers, naming the mismatch's path", async () => {
    threads = startManifestValidationThreads({ threads: 1 });
    expect(await threads.validateInput("review", reviewInput, { diff: "+x" })).toEqual({
      ok: true,
    });
    expect(await threads.validateInput("review", reviewInput, { diff: 5 })).toEqual({
      ok: false,
      mismatch: { path: "input.diff", message: "must be string" },
    });
  });

  it("keeps the check compiled under its key on the thread", async () => {
    threads = startManifestValidationThreads({ threads: 1 });
    await threads.validateInput("listing-a", reviewInput, { diff: "+x" });
    // The key already names a compiled check: the schema sent with it again is not compiled anew.
    expect(await threads.validateInput("listing-a", { type: "string" }, { diff: "+x" })).toEqual({
      ok: true,
    });
    expect(await threads.validateInput("listing-b", { type: "string" }, { diff: "+x" })).toEqual({
      ok: false,
      mismatch: { path: "input", message: "must be string" },
    });
  });

  it("answers a check over its budget as a mismatch, and replaces the thread", async () => {
    threads = startManifestValidationThreads({ threads: 1, compileBudgetMs: 100 });
    expect(await threads.validateInput("slow", slowSchema, {})).toEqual({
      ok: false,
      mismatch: { path: "input", message: "could not be checked within 100 ms" },
    });
    expect(await threads.validateInput("review", reviewInput, { diff: "+x" })).toEqual({
      ok: true,
    });
  });
});

describe("finding M-4: one listing cannot stall input checks", () => {
  it("gives a value's check checkBudgetMs, apart from its schema's compile budget", async () => {
    threads = startManifestValidationThreads({
      threads: 1,
      compileBudgetMs: 60_000,
      checkBudgetMs: 100,
    });
    // Slow to compile, quick to check: within the compile budget.
    expect(await threads.validateInput("patterns", slowSchema, {})).toEqual({ ok: true });
    expect(await threads.validateInput("nested", slowToCheck, slowInput)).toEqual({
      ok: false,
      mismatch: { path: "input", message: "could not be checked within 100 ms" },
    });
    expect(await threads.validateInput("nested", slowToCheck, [[]])).toEqual({ ok: true });
  });

  it("serves another queue's check after one check in flight per thread, however long one queue is", async () => {
    // A budget well beyond a thread's restart, so the order of answers is the order of turns even
    // when a loaded machine is slow to start a thread again.
    threads = startManifestValidationThreads({ threads: 2, checkBudgetMs: 1_000 });
    const answered: string[] = [];
    const check = (queue: string, schema: object, input: unknown) =>
      threads
        ?.validateInput(queue, schema, input, queue)
        .then((validation) => answered.push(`${queue}:${validation.ok}`));
    const flood = Array.from({ length: 6 }, () => check("flood", slowToCheck, slowInput));
    await check("other", { type: "string" }, "quick");
    await Promise.all(flood);
    // In flight on each thread when it came, and the flood's turn before its own: at most three.
    expect(answered.indexOf("other:true")).toBeLessThanOrEqual(3);
    expect(answered.filter((answer) => answer === "flood:false")).toHaveLength(6);
  });

  it("keeps a thread for other queues when one queue may hold only busyPerKey of them", async () => {
    threads = startManifestValidationThreads({ threads: 2, checkBudgetMs: 1_000, busyPerKey: 1 });
    const answered: string[] = [];
    const flood = Array.from({ length: 3 }, () =>
      threads?.validateInput("flood", slowToCheck, slowInput).then(() => answered.push("flood")),
    );
    expect(await threads.validateInput("other", { type: "string" }, "quick", "other")).toEqual({
      ok: true,
    });
    answered.push("other");
    await Promise.all(flood);
    expect(answered).toEqual(["other", "flood", "flood", "flood"]);
  });

  it("refuses a check past its queue's bound or its wait's deadline", async () => {
    threads = startManifestValidationThreads({
      threads: 1,
      checkBudgetMs: 2_000,
      waitingPerKey: 1,
      waitMs: 300,
    });
    const inFlight = threads.validateInput("nested", slowToCheck, slowInput);
    const waiting = threads.validateInput("nested", slowToCheck, slowInput).catch((e) => e);
    const full = await threads.validateInput("nested", slowToCheck, [[]]).catch((e) => e);
    expect(full).toBeInstanceOf(QueueRefusal);
    expect(full).toMatchObject({ reason: "full" });
    expect(await waiting).toMatchObject({ reason: "deadline" });
    expect(await inFlight).toMatchObject({ ok: false });
  });
});
