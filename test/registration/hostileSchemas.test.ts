// Finding: manifest schemas cannot stall a process. On the embedded composition (the API, an
// in-process bus and the registration worker in one process, no NATS), hostile `input_schema`s are
// refused precisely, a schema over the compile budget fails its job, and the API answers throughout.
import { beforeAll, describe, expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import {
  deeplyNested,
  manifestWithArraysNested,
  manyRefsToOneLargeDefinition,
  slowToCompile,
} from "../support/hostileSchemas.ts";
import { http, signIn } from "../support/http.ts";
import {
  declarativeManifest,
  REGISTRATION_STACK,
  registerAgent,
  settledJob,
} from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ ...REGISTRATION_STACK, nats: false, workers: 0 });
const creator = devAccount(8);

/** The embedded API with the default budget (2 s), one whose budget outlasts any schema, one of 100 ms. */
let asCreator: ReturnType<typeof http>;
let onPatientApi: ReturnType<typeof http>;
let onHastyApi: ReturnType<typeof http>;

beforeAll(async () => {
  const [patient, hasty] = await Promise.all([
    stack().addApi({ SCHEMA_COMPILE_BUDGET_MS: "60000" }),
    stack().addApi({ SCHEMA_COMPILE_BUDGET_MS: "100" }),
  ]);
  // Every API signs with the stack's JWT secret: one sign-in serves all three.
  const bearer = await signIn(stack().api.url, creator);
  asCreator = http(() => stack().api.url, { bearer });
  onPatientApi = http((patient as Api).url, { bearer });
  onHastyApi = http((hasty as Api).url, { bearer });
});

const withInputSchema = (input_schema: unknown) =>
  declarativeManifest("hostile-schema", { input_schema });

/** Registers `manifest` through `client` and returns its failed job's violations as `{field, rule}`. */
async function rejectionOf(client: ReturnType<typeof http>, manifest: unknown) {
  const job = await settledJob(client, await registerAgent(client, manifest));
  expect(job.body).toMatchObject({ status: "failed", error: { code: "manifest_rejected" } });
  return (job.body.error.violations as { field: string; rule: string }[]).map(
    ({ field, rule }) => ({ field, rule }),
  );
}

describe("finding: manifest schemas cannot stall a process", () => {
  it("refuses the 300-$ref schema by its references, before compiling it", async () => {
    const schema = manyRefsToOneLargeDefinition(300);
    expect(JSON.stringify(schema).length).toBeGreaterThan(10_000);
    expect(await rejectionOf(asCreator, withInputSchema(schema))).toEqual([
      { field: "input_schema", rule: "max_refs" },
    ]);
  });

  it("registers a schema at the $ref limit, compiled without inlining", async () => {
    const job = await settledJob(
      asCreator,
      await registerAgent(asCreator, withInputSchema(manyRefsToOneLargeDefinition(100))),
    );
    expect(job.body.status).toBe("completed");
  });

  it.each([
    ["nested 33 levels deep", deeplyNested(33), "max_depth"],
    [
      "of 1,001 JSON values",
      { enum: Array.from({ length: 999 }, (_, index) => index) },
      "max_size",
    ],
  ])("refuses a schema %s, naming the limit", async (_what, schema, rule) => {
    expect(await rejectionOf(asCreator, withInputSchema(schema))).toEqual([
      { field: "input_schema", rule },
    ]);
  });

  it("refuses a schema nested 10,000 levels deep, past the stack of any walk, naming the limit", async () => {
    const manifest = manifestWithArraysNested(declarativeManifest("deep-schema"), 10_000);
    expect(await rejectionOf(asCreator, manifest)).toEqual([
      { field: "input_schema", rule: "max_depth" },
    ]);
  });

  it("refuses a pattern the linear-time engine cannot run, naming its path", async () => {
    const schema = { type: "object", properties: { word: { pattern: "^(\\w+) \\1$" } } };
    expect(await rejectionOf(asCreator, withInputSchema(schema))).toEqual([
      { field: "input_schema.properties.word.pattern", rule: "linear_regex" },
    ]);
  });

  it("fails the job of a schema that outruns the compile budget, and compiles the next one", async () => {
    const jobId = await registerAgent(onHastyApi, withInputSchema(slowToCompile()));
    const job = await settledJob(onHastyApi, jobId);
    expect(job.body).toEqual({
      job_id: jobId,
      status: "failed",
      error: {
        code: "manifest_rejected",
        message: "The manifest was rejected: input_schema (compile_timeout)",
        violations: [
          {
            field: "input_schema",
            rule: "compile_timeout",
            message: "did not compile within 100 ms",
          },
        ],
      },
    });
    const next = await registerAgent(onHastyApi, declarativeManifest("after-the-timeout"));
    expect((await settledJob(onHastyApi, next)).body.status).toBe("completed");
  });

  it("keeps the API answering while a slow schema compiles in the same process", async () => {
    const submittedAt = performance.now();
    const jobId = await registerAgent(onPatientApi, withInputSchema(slowToCompile()));
    // Poll the job itself: each answer is the API's event loop turning while the worker compiles.
    const answeredAt = [submittedAt];
    let status = "queued";
    let queuedAnswers = 0;
    while (status === "queued") {
      const job = await onPatientApi.get(`/v1/jobs/${jobId}`);
      expect(job.status).toBe(200);
      answeredAt.push(performance.now());
      status = job.body.status;
      if (status === "queued") queuedAnswers += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe("completed");
    const processingMs = (answeredAt.at(-1) as number) - submittedAt;
    const longestSilenceMs = Math.max(
      ...answeredAt.slice(1).map((at, index) => at - (answeredAt[index] as number)),
    );
    // Compiled on the API's event loop, the API would go silent for most of the job's life.
    expect(queuedAnswers).toBeGreaterThanOrEqual(5);
    expect(longestSilenceMs).toBeLessThan(processingMs / 2);
  });
});
