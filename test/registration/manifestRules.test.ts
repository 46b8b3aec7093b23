// Acceptance 2: every manifest rule, over HTTP against the whole stack (API process, NATS JetStream,
// a worker process), rejects precisely; the 64 KB limit and malformed bodies get clear errors; a
// manifest at every maximum at once (64 KB, 10 tools, 300 seconds) is registered.
import { request } from "node:http";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { jobs } from "../../lib/db/appSchema.ts";
import { startTestStack, type TestStack } from "../harness/stack.ts";
import { getJson, type JsonResponse, signIn } from "../support/http.ts";

const LIMIT_BYTES = 65_536;
const creator = devAccount(6);
const stranger = devAccount(7);

let stack: TestStack;
let token: string;
let strangerToken: string;

type Manifest = Record<string, unknown>;

/** A valid declarative manifest on a hosted vendor; each case breaks one rule of it. */
function declarative(): Manifest {
  return {
    name: "rule-probe",
    category: "coding",
    description: "Probes one manifest rule at a time.",
    model: { provider: "anthropic", model: "claude-sonnet-4" },
    system_prompt: "You review code.",
    input_schema: { type: "object", properties: { diff: { type: "string" } }, required: ["diff"] },
    output_schema: { type: "object", properties: { review: { type: "string" } } },
  };
}

/** A valid connected agent: run on the creator's own infrastructure through its webhook. */
function connected(): Manifest {
  return {
    name: "connected-probe",
    category: "research",
    description: "Runs on the creator's own infrastructure.",
    model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
    entrypoint_url: "https://agents.example.com/run",
    input_schema: { type: "object" },
    output_schema: { type: "object" },
  };
}

function without(manifest: Manifest, field: string): Manifest {
  const { [field]: _removed, ...rest } = manifest;
  return rest;
}

function tools(count: number) {
  const scopes = ["read_only", "input_only", "repo_scoped"];
  return Array.from({ length: count }, (_, index) => ({
    name: `tool-${index}`,
    scope: scopes[index % scopes.length],
  }));
}

async function post(
  body: string,
  { bearer = token, headers = {} }: { bearer?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse> {
  const response = await fetch(`${stack.api.url}/v1/agents`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/**
 * POSTs `body` on a connection of its own, closed afterwards. A server may answer an oversized body
 * before reading it and then drop the connection; sharing fetch's keep-alive pool would turn that
 * into a failure of whichever request reuses the socket next (see the report on api/app.ts).
 */
function postOnFreshConnection(body: string): Promise<Pick<JsonResponse, "status" | "body">> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = request(
      new URL("/v1/agents", stack.api.url),
      {
        method: "POST",
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        answered = true;
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }),
        );
        response.on("error", reject);
      },
    );
    // Once answered, the server hanging up on the rest of the upload is expected.
    outgoing.on("error", (error) => {
      if (!answered) reject(error);
    });
    outgoing.end(body);
  });
}

async function submit(manifest: unknown): Promise<string> {
  const response = await post(JSON.stringify(manifest));
  expect(response.status).toBe(202);
  expect(response.body).toEqual({ job_id: expect.stringMatching(/^job_/), status: "queued" });
  return response.body.job_id;
}

async function settledJob(jobId: string, bearer = token): Promise<JsonResponse> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = await getJson(stack.api.url, `/v1/jobs/${jobId}`, bearer);
    expect(job.status).toBe(200);
    if (job.body.status !== "queued") return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still queued after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Registers `manifest` and returns the failed job's violations as `{field, rule}`. */
async function rejectionOf(manifest: unknown) {
  const jobId = await submit(manifest);
  const job = await settledJob(jobId);
  expect(job.body).toEqual({
    job_id: jobId,
    status: "failed",
    error: {
      code: "manifest_rejected",
      message: expect.stringMatching(/^The manifest was rejected: /),
      violations: expect.any(Array),
    },
  });
  const { message, violations } = job.body.error as {
    message: string;
    violations: { field: string; rule: string; message: string }[];
  };
  for (const violation of violations) {
    expect(violation).toEqual({
      field: expect.any(String),
      rule: expect.any(String),
      message: expect.stringMatching(/\S/),
    });
    // The summary names each rejected field with its rule.
    expect(message).toContain(`${violation.field} (${violation.rule})`);
  }
  return violations.map(({ field, rule }) => ({ field, rule }));
}

async function jobCount(): Promise<number> {
  const [row] = await stack.db.select({ n: count() }).from(jobs);
  return row?.n ?? 0;
}

/** A manifest of exactly `bytes` bytes (UTF-8), padded with `pad` by `fill` into one field. */
function manifestOfSize(bytes: number, fill: (padding: string) => Manifest, pad = "p"): string {
  const overhead = Buffer.byteLength(JSON.stringify(fill("")));
  const padBytes = Buffer.byteLength(pad);
  const room = bytes - overhead;
  const padding = pad.repeat(Math.floor(room / padBytes)) + "x".repeat(room % padBytes);
  const body = JSON.stringify(fill(padding));
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

/** At every maximum at once: 10 tools, a 300-second timeout, padded to `bytes` in the prompt. */
function maximalManifest(bytes: number): string {
  return manifestOfSize(bytes, (padding) => ({
    ...declarative(),
    name: "maximal-agent",
    tools: tools(10),
    timeout_seconds: 300,
    system_prompt: `You review code.${padding}`,
  }));
}

beforeAll(async () => {
  // Polling counts against the rate limit; this file is about manifests, not rate limits.
  stack = await startTestStack({ nats: true, rateLimitPerMinute: 100_000 });
  await stack.startWorker();
  token = await signIn(stack.api.url, creator);
  strangerToken = await signIn(stack.api.url, stranger);
});

afterAll(async () => {
  await stack?.stop();
});

describe("each manifest rule rejects the job precisely, naming the field and the rule", () => {
  const cases: [string, () => unknown, { field: string; rule: string }[]][] = [
    ["missing name", () => without(declarative(), "name"), [{ field: "name", rule: "required" }]],
    [
      "missing category",
      () => without(declarative(), "category"),
      [{ field: "category", rule: "required" }],
    ],
    [
      "missing description",
      () => without(declarative(), "description"),
      [{ field: "description", rule: "required" }],
    ],
    [
      "missing model",
      () => without(declarative(), "model"),
      [{ field: "model", rule: "required" }],
    ],
    [
      "missing model.provider",
      () => ({ ...declarative(), model: { model: "claude-sonnet-4" } }),
      [{ field: "model.provider", rule: "required" }],
    ],
    [
      "missing input_schema",
      () => without(declarative(), "input_schema"),
      [{ field: "input_schema", rule: "required" }],
    ],
    [
      "missing output_schema",
      () => without(declarative(), "output_schema"),
      [{ field: "output_schema", rule: "required" }],
    ],
    [
      "a name in camelCase",
      () => ({ ...declarative(), name: "ruleProbe" }),
      [{ field: "name", rule: "kebab_case" }],
    ],
    [
      "a name in snake_case",
      () => ({ ...declarative(), name: "rule_probe" }),
      [{ field: "name", rule: "kebab_case" }],
    ],
    [
      "a name with a double hyphen",
      () => ({ ...declarative(), name: "rule--probe" }),
      [{ field: "name", rule: "kebab_case" }],
    ],
    [
      "a name with a trailing hyphen",
      () => ({ ...declarative(), name: "rule-probe-" }),
      [{ field: "name", rule: "kebab_case" }],
    ],
    [
      "an unknown category",
      () => ({ ...declarative(), category: "gaming" }),
      [{ field: "category", rule: "enum" }],
    ],
    [
      "a category in the wrong case",
      () => ({ ...declarative(), category: "Finance" }),
      [{ field: "category", rule: "enum" }],
    ],
    [
      "an unknown model provider",
      () => ({ ...declarative(), model: { provider: "acme", model: "m1" } }),
      [{ field: "model.provider", rule: "enum" }],
    ],
    [
      "anthropic without model.model",
      () => ({ ...declarative(), model: { provider: "anthropic" } }),
      [{ field: "model.model", rule: "required" }],
    ],
    [
      "openai without model.model",
      () => ({ ...declarative(), model: { provider: "openai" } }),
      [{ field: "model.model", rule: "required" }],
    ],
    [
      "self_hosted without model.endpoint_url",
      () => ({ ...declarative(), model: { provider: "self_hosted" } }),
      [{ field: "model.endpoint_url", rule: "required" }],
    ],
    [
      "an http:// model.endpoint_url",
      () => ({
        ...declarative(),
        model: { provider: "self_hosted", endpoint_url: "http://models.example.com/v1" },
      }),
      [{ field: "model.endpoint_url", rule: "https" }],
    ],
    [
      "both system_prompt and entrypoint_url",
      () => ({ ...declarative(), entrypoint_url: "https://agents.example.com/run" }),
      [{ field: "system_prompt", rule: "exclusive" }],
    ],
    [
      "neither system_prompt nor entrypoint_url",
      () => without(declarative(), "system_prompt"),
      [{ field: "system_prompt", rule: "one_of_required" }],
    ],
    [
      "an http:// entrypoint_url",
      () => ({ ...connected(), entrypoint_url: "http://agents.example.com/run" }),
      [{ field: "entrypoint_url", rule: "https" }],
    ],
    [
      "an entrypoint_url that is not a URL",
      () => ({ ...connected(), entrypoint_url: "agents.example.com/run" }),
      [{ field: "entrypoint_url", rule: "https" }],
    ],
    [
      "an entrypoint_url carrying user:password",
      () => ({ ...connected(), entrypoint_url: "https://me:hunter2@agents.example.com/run" }),
      [{ field: "entrypoint_url", rule: "no_credentials" }],
    ],
    [
      "11 tools",
      () => ({ ...declarative(), tools: tools(11) }),
      [{ field: "tools", rule: "max_items" }],
    ],
    [
      "a tool scope outside read_only, input_only, repo_scoped",
      () => ({ ...declarative(), tools: [...tools(3), { name: "shell", scope: "full_access" }] }),
      [{ field: "tools[3].scope", rule: "enum" }],
    ],
    [
      "a tool without a scope",
      () => ({ ...declarative(), tools: [{ name: "shell" }] }),
      [{ field: "tools[0].scope", rule: "required" }],
    ],
    [
      "timeout_seconds 301",
      () => ({ ...declarative(), timeout_seconds: 301 }),
      [{ field: "timeout_seconds", rule: "max" }],
    ],
    [
      "timeout_seconds 0",
      () => ({ ...declarative(), timeout_seconds: 0 }),
      [{ field: "timeout_seconds", rule: "min" }],
    ],
    [
      "a fractional timeout_seconds",
      () => ({ ...declarative(), timeout_seconds: 12.5 }),
      [{ field: "timeout_seconds", rule: "integer" }],
    ],
    [
      "an input_schema that is not a JSON Schema",
      () => ({ ...declarative(), input_schema: { type: "banana" } }),
      [{ field: "input_schema", rule: "json_schema" }],
    ],
    [
      "an input_schema that is not an object",
      () => ({ ...declarative(), input_schema: "object" }),
      [{ field: "input_schema", rule: "type" }],
    ],
    [
      "an output_schema that is not a JSON Schema",
      () => ({ ...declarative(), output_schema: { type: "object", properties: { a: 5 } } }),
      [{ field: "output_schema", rule: "json_schema" }],
    ],
    [
      "an output_schema with an unresolvable $ref",
      () => ({ ...declarative(), output_schema: { $ref: "#/definitions/missing" } }),
      [{ field: "output_schema", rule: "json_schema" }],
    ],
    [
      "an unknown top-level field",
      () => ({ ...declarative(), temperature: 0.2 }),
      [{ field: "temperature", rule: "unknown_field" }],
    ],
    [
      "an unknown field inside model",
      () => ({ ...declarative(), model: { provider: "anthropic", model: "m", region: "eu" } }),
      [{ field: "model.region", rule: "unknown_field" }],
    ],
    [
      "vendor_credentials on a connected agent",
      () => ({ ...connected(), vendor_credentials: { api_key: "sk-not-for-a-webhook" } }),
      [{ field: "vendor_credentials", rule: "not_allowed" }],
    ],
    [
      "vendor_credentials on a self-hosted declarative agent",
      () => ({
        ...declarative(),
        model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
        vendor_credentials: { api_key: "sk-no-vendor-here" },
      }),
      [{ field: "vendor_credentials", rule: "not_allowed" }],
    ],
    [
      "vendor_credentials that are not a map of strings",
      () => ({ ...declarative(), vendor_credentials: { api_key: 42 } }),
      [{ field: "vendor_credentials", rule: "type" }],
    ],
  ];

  it.each(cases)("%s", async (_name, manifest, expected) => {
    expect(await rejectionOf(manifest())).toEqual(expected);
  });

  it("reports every violation of a manifest at once, not just the first", async () => {
    const violations = await rejectionOf({
      ...without(declarative(), "description"),
      name: "Bad Name",
      category: "gaming",
      tools: [...tools(10), { name: "extra", scope: "root" }],
      timeout_seconds: 301,
    });
    expect(violations).toEqual(
      expect.arrayContaining([
        { field: "name", rule: "kebab_case" },
        { field: "category", rule: "enum" },
        { field: "description", rule: "required" },
        { field: "tools", rule: "max_items" },
        { field: "tools[10].scope", rule: "enum" },
        { field: "timeout_seconds", rule: "max" },
      ]),
    );
    expect(violations).toHaveLength(6);
  });

  it("accepts the valid baselines the cases start from (so each rejection is that rule's)", async () => {
    for (const manifest of [declarative(), connected()]) {
      const job = await settledJob(await submit(manifest));
      expect(job.body.status).toBe("completed");
    }
  });
});

describe("the manifest size limit is 64 KB (65,536 bytes), inclusive", () => {
  it("registers a manifest of exactly 65,536 bytes with 10 tools and a 300-second timeout", async () => {
    const body = maximalManifest(LIMIT_BYTES);
    const response = await post(body);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ job_id: expect.stringMatching(/^job_/), status: "queued" });

    const job = await settledJob(response.body.job_id);
    expect(job.body).toMatchObject({
      status: "completed",
      result: { agent_id: expect.stringMatching(/^maximal-agent-[0-9a-f]{8}$/) },
    });
    // The public manifest behind metadata_uri keeps the 10 tools and the 300 seconds.
    const cid = String(job.body.result.create_listing.metadata_uri).replace("ipfs://", "");
    const published = await getJson(stack.api.url, `/v1/manifests/${cid}`, token);
    expect(published.status).toBe(200);
    expect(published.body.tools).toEqual(tools(10));
    expect(published.body.timeout_seconds).toBe(300);
  });

  it("counts bytes, not characters: 65,536 bytes of multi-byte text are accepted", async () => {
    const body = manifestOfSize(
      LIMIT_BYTES,
      (padding) => ({
        ...declarative(),
        name: "multibyte-agent",
        input_schema: { type: "object", description: `Entrée${padding}` },
      }),
      "é",
    );
    expect(body.length).toBeLessThan(LIMIT_BYTES);
    const response = await post(body);
    expect(response.status).toBe(202);
    expect((await settledJob(response.body.job_id)).body.status).toBe("completed");
  });

  it("refuses 65,537 bytes with 413 payload_too_large naming the limit, creating no job", async () => {
    const jobsBefore = await jobCount();
    const response = await postOnFreshConnection(maximalManifest(LIMIT_BYTES + 1));
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      error: {
        code: "payload_too_large",
        // Names the limit, in bytes.
        message: expect.stringMatching(/\b65536 bytes\b/),
        status: 413,
      },
    });
    expect(await jobCount()).toBe(jobsBefore);
  });

  it("refuses 65,537 bytes even when they are fewer than 65,536 characters", async () => {
    const body = manifestOfSize(
      LIMIT_BYTES + 1,
      (padding) => ({ ...declarative(), system_prompt: `Réponds${padding}` }),
      "é",
    );
    expect(body.length).toBeLessThan(LIMIT_BYTES);
    const response = await postOnFreshConnection(body);
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe("payload_too_large");
  });

  it("refuses a far larger body (1 MB) the same way", async () => {
    const response = await postOnFreshConnection(maximalManifest(1024 * 1024));
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({ code: "payload_too_large", status: 413 });
    expect(response.body.error.message).toMatch(/\b65536 bytes\b/);
  });
});

describe("a body that is not a manifest object is refused at once with 400 invalid_request", () => {
  it.each([
    ["truncated JSON", '{"name": "rule-probe", "category": '],
    ["a trailing comma", '{"name": "rule-probe",}'],
    ["single quotes", "{'name': 'rule-probe'}"],
    ["an empty body", ""],
    ["plain text", "register my agent please"],
  ])("invalid JSON: %s", async (_name, body) => {
    const jobsBefore = await jobCount();
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        code: "invalid_request",
        message: "The manifest is not valid JSON",
        status: 400,
      },
    });
    expect(await jobCount()).toBe(jobsBefore);
  });

  it.each([
    ["a JSON array", JSON.stringify([declarative()])],
    ["an empty array", "[]"],
    ["null", "null"],
    ["a string", '"rule-probe"'],
    ["a number", "42"],
    ["true", "true"],
  ])("valid JSON that is not an object: %s", async (_name, body) => {
    const jobsBefore = await jobCount();
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        code: "invalid_request",
        message: "The manifest must be a JSON object",
        status: 400,
      },
    });
    expect(await jobCount()).toBe(jobsBefore);
  });

  it("a body sent without Content-Type: application/json", async () => {
    const response = await post(JSON.stringify(declarative()), {
      headers: { "content-type": "text/plain" },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: "invalid_request",
      message: "Content-Type must be application/json",
      status: 400,
    });
  });
});

describe("a job is visible to the wallet that created it only", () => {
  it("another wallet gets 404 job_not_found for a job that exists", async () => {
    const jobId = await submit(declarative());
    const own = await settledJob(jobId);
    expect(own.body.status).toBe("completed");

    const other = await getJson(stack.api.url, `/v1/jobs/${jobId}`, strangerToken);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({
      error: { code: "job_not_found", message: "No job with this id", status: 404 },
    });
  });

  it("an unknown or malformed job id is 404 job_not_found", async () => {
    for (const jobId of [`job_${"0".repeat(24)}`, "job_", "nope", "%27%20or%201%3D1"]) {
      const response = await getJson(stack.api.url, `/v1/jobs/${jobId}`, token);
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ code: "job_not_found", status: 404 });
    }
  });

  it("without authentication a job is 401, whoever created it", async () => {
    const jobId = await submit(declarative());
    const response = await getJson(stack.api.url, `/v1/jobs/${jobId}`);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("unauthorized");
    const [row] = await stack.db
      .select({ status: jobs.status })
      .from(jobs)
      .where(eq(jobs.id, jobId));
    expect(row).toBeDefined();
  });
});
