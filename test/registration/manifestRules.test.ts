// Acceptance 2: every manifest rule, over HTTP against the whole stack (API process, NATS JetStream,
// a worker process), rejects precisely; the 64 KB limit and malformed bodies get clear errors; a
// manifest at every maximum at once (64 KB, 10 tools, 300 seconds) is registered.
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { jobs } from "../../lib/db/appSchema.ts";
import { TOOL_CATALOG, TOOL_NAMES } from "../../lib/manifest/toolCatalog.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { postOversized } from "../support/postOversized.ts";
import {
  declarativeManifest,
  type Manifest,
  REGISTRATION_STACK,
  registerAgent,
  settledJob,
} from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const LIMIT_BYTES = 65_536;
const creator = devAccount(6);
const stranger = devAccount(7);
const stack = useStack(REGISTRATION_STACK);
const apiUrl = () => stack().api.url;

let token: string;
let asCreator: ReturnType<typeof http>;
let asStranger: ReturnType<typeof http>;

beforeAll(async () => {
  [token, asStranger] = await Promise.all([
    signIn(apiUrl(), creator),
    signIn(apiUrl(), stranger).then((bearer) => http(apiUrl, { bearer })),
  ]);
  asCreator = http(apiUrl, { bearer: token });
});

/** A valid declarative manifest on a hosted vendor; each case breaks one rule of it. */
const declarative = (extra: Manifest = {}) => declarativeManifest("rule-probe", extra);

/** A valid connected agent: run on the creator's own infrastructure through its webhook. */
function connected(extra: Manifest = {}): Manifest {
  return {
    name: "connected-probe",
    category: "research",
    description: "Runs on the creator's own infrastructure.",
    model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
    entrypoint_url: "https://agents.example.com/run",
    input_schema: { type: "object" },
    output_schema: { type: "object" },
    ...extra,
  };
}

function without(manifest: Manifest, field: string): Manifest {
  const { [field]: _removed, ...rest } = manifest;
  return rest;
}

/** `count` built-in tools with their scopes, the catalogue over again past its end. */
function tools(count: number) {
  return Array.from({ length: count }, (_, index) => {
    const name = TOOL_NAMES[index % TOOL_NAMES.length] as keyof typeof TOOL_CATALOG;
    return { name, scope: TOOL_CATALOG[name].scope };
  });
}

const postManifest = (body: string, options?: { headers: Record<string, string> }) =>
  asCreator.post("/v1/agents", body, options);

/** POSTs an oversized manifest as the creator (see `postOversized`). */
const postOnFreshConnection = (body: string) =>
  postOversized(`${apiUrl()}/v1/agents`, body, { bearer: token });

/** Registers `manifest` and returns the failed job's violations as `{field, rule}`. */
async function rejectionOf(manifest: unknown) {
  const jobId = await registerAgent(asCreator, manifest);
  const job = await settledJob(asCreator, jobId);
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
  const [row] = await stack().db.select({ n: count() }).from(jobs);
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
  return manifestOfSize(bytes, (padding) =>
    declarative({
      name: "maximal-agent",
      tools: tools(10),
      timeout_seconds: 300,
      system_prompt: `You review code.${padding}`,
    }),
  );
}

const REQUIRED_FIELDS = [
  "name",
  "category",
  "description",
  "model",
  "input_schema",
  "output_schema",
];
const SELF_HOSTED = { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" };

/** For each violation ("field rule"), the manifests that break that rule and no other, by name. */
const brokenRules: Record<string, Record<string, Manifest>> = {
  ...Object.fromEntries(
    REQUIRED_FIELDS.map((field) => [
      `${field} required`,
      { [`missing ${field}`]: without(declarative(), field) },
    ]),
  ),
  "model.provider required": {
    "missing model.provider": declarative({ model: { model: "claude-sonnet-4" } }),
  },
  "name kebab_case": {
    "a name in camelCase": declarative({ name: "ruleProbe" }),
    "a name in snake_case": declarative({ name: "rule_probe" }),
    "a name with a double hyphen": declarative({ name: "rule--probe" }),
    "a name with a trailing hyphen": declarative({ name: "rule-probe-" }),
  },
  "category enum": {
    "an unknown category": declarative({ category: "gaming" }),
    "a category in the wrong case": declarative({ category: "Finance" }),
  },
  "model.provider enum": {
    "an unknown model provider": declarative({ model: { provider: "acme", model: "m1" } }),
  },
  "model.model required": {
    "anthropic without model.model": declarative({ model: { provider: "anthropic" } }),
    "openai without model.model": declarative({ model: { provider: "openai" } }),
  },
  "model.endpoint_url required": {
    "self_hosted without model.endpoint_url": declarative({ model: { provider: "self_hosted" } }),
  },
  "model.endpoint_url https": {
    "an http:// model.endpoint_url": declarative({
      model: { ...SELF_HOSTED, endpoint_url: "http://models.example.com/v1" },
    }),
  },
  "system_prompt exclusive": {
    "both system_prompt and entrypoint_url": declarative({
      entrypoint_url: "https://agents.example.com/run",
    }),
  },
  "system_prompt one_of_required": {
    "neither system_prompt nor entrypoint_url": without(declarative(), "system_prompt"),
  },
  "entrypoint_url https": {
    "an http:// entrypoint_url": connected({ entrypoint_url: "http://agents.example.com/run" }),
    "an entrypoint_url that is not a URL": connected({ entrypoint_url: "agents.example.com/run" }),
  },
  "entrypoint_url no_credentials": {
    "an entrypoint_url carrying user:password": connected({
      entrypoint_url: "https://me:hunter2@agents.example.com/run",
    }),
  },
  "tools[3].scope enum": {
    "a tool scope outside read_only, input_only, repo_scoped": declarative({
      tools: [...tools(3), { name: "fetch_url", scope: "full_access" }],
    }),
  },
  "tools[0].scope required": {
    "a tool without a scope": declarative({ tools: [{ name: "fetch_url" }] }),
  },
  "tools[0].name unknown_tool": {
    "a tool that is not built in": declarative({ tools: [{ name: "shell", scope: "read_only" }] }),
  },
  "tools[0].scope tool_scope": {
    "a built-in tool in another scope than its own": declarative({
      tools: [{ name: "fetch_url", scope: "repo_scoped" }],
    }),
  },
  "tools[2].name duplicate_tool": {
    "a tool listed twice": declarative({ tools: [...tools(2), ...tools(1)] }),
  },
  "timeout_seconds max": { "timeout_seconds 301": declarative({ timeout_seconds: 301 }) },
  "timeout_seconds min": { "timeout_seconds 0": declarative({ timeout_seconds: 0 }) },
  "timeout_seconds integer": {
    "a fractional timeout_seconds": declarative({ timeout_seconds: 12.5 }),
  },
  "input_schema json_schema": {
    "an input_schema that is not a JSON Schema": declarative({ input_schema: { type: "banana" } }),
  },
  "input_schema type": {
    "an input_schema that is not an object": declarative({ input_schema: "object" }),
  },
  "output_schema json_schema": {
    "an output_schema that is not a JSON Schema": declarative({
      output_schema: { type: "object", properties: { a: 5 } },
    }),
    "an output_schema with an unresolvable $ref": declarative({
      output_schema: { $ref: "#/definitions/missing" },
    }),
  },
  "temperature unknown_field": {
    "an unknown top-level field": declarative({ temperature: 0.2 }),
  },
  "model.region unknown_field": {
    "an unknown field inside model": declarative({
      model: { provider: "anthropic", model: "m", region: "eu" },
    }),
  },
  "vendor_credentials not_allowed": {
    "vendor_credentials on a connected agent": connected({
      vendor_credentials: { api_key: "sk-not-for-a-webhook" },
    }),
    "vendor_credentials on a self-hosted declarative agent": declarative({
      model: SELF_HOSTED,
      vendor_credentials: { api_key: "sk-no-vendor-here" },
    }),
  },
  "description no_nul": {
    "a NUL character in the description": declarative({ description: "Reviews\u0000 diffs" }),
  },
  "input_schema.properties.diff.title no_nul": {
    "a NUL character deep inside input_schema": declarative({
      input_schema: { type: "object", properties: { diff: { type: "string", title: "\u0000" } } },
    }),
  },
  "vendor_credentials type": {
    "vendor_credentials that are not a map of strings": declarative({
      vendor_credentials: { api_key: 42 },
    }),
  },
};

// Each case is a job of its own: they run concurrently.
describe.concurrent("each manifest rule rejects the job precisely, naming the field and the rule", () => {
  const cases = Object.entries(brokenRules).flatMap(([violation, manifests]) => {
    const [field, rule] = violation.split(" ");
    return Object.entries(manifests).map(([name, manifest]) => ({ name, manifest, field, rule }));
  });

  it.each(cases)("$name", async ({ manifest, field, rule }) => {
    expect(await rejectionOf(manifest)).toEqual([{ field, rule }]);
  });

  it("11 tools (the 11th necessarily repeating one)", async () => {
    expect(await rejectionOf(declarative({ tools: tools(11) }))).toEqual([
      { field: "tools", rule: "max_items" },
      { field: "tools[10].name", rule: "duplicate_tool" },
    ]);
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
        { field: "tools[10].name", rule: "unknown_tool" },
        { field: "tools[10].scope", rule: "enum" },
        { field: "timeout_seconds", rule: "max" },
      ]),
    );
    expect(violations).toHaveLength(7);
  });

  it("accepts the valid baselines the cases start from (so each rejection is that rule's)", async () => {
    for (const manifest of [declarative(), connected()]) {
      const job = await settledJob(asCreator, await registerAgent(asCreator, manifest));
      expect(job.body.status).toBe("completed");
    }
  });
});

describe("the manifest size limit is 64 KB (65,536 bytes), inclusive", () => {
  it("registers a manifest of exactly 65,536 bytes with 10 tools and a 300-second timeout", async () => {
    const jobId = await registerAgent(asCreator, maximalManifest(LIMIT_BYTES));
    const job = await settledJob(asCreator, jobId);
    expect(job.body).toMatchObject({
      status: "completed",
      result: { agent_id: expect.stringMatching(/^maximal-agent-[0-9a-f]{8}$/) },
    });
    // The public manifest behind metadata_uri keeps the 10 tools and the 300 seconds.
    const cid = String(job.body.result.create_listing.metadata_uri).replace("ipfs://", "");
    const published = await asCreator.get(`/v1/manifests/${cid}`);
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
    const job = await settledJob(asCreator, await registerAgent(asCreator, body));
    expect(job.body.status).toBe("completed");
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
  const NOT_JSON = "The manifest is not valid JSON";
  const NOT_AN_OBJECT = "The manifest must be a JSON object";
  it.each([
    ["invalid JSON: truncated JSON", '{"name": "rule-probe", "category": ', NOT_JSON],
    ["invalid JSON: a trailing comma", '{"name": "rule-probe",}', NOT_JSON],
    ["invalid JSON: single quotes", "{'name': 'rule-probe'}", NOT_JSON],
    ["invalid JSON: an empty body", "", NOT_JSON],
    ["invalid JSON: plain text", "register my agent please", NOT_JSON],
    [
      "valid JSON that is not an object: a JSON array",
      JSON.stringify([declarative()]),
      NOT_AN_OBJECT,
    ],
    ["valid JSON that is not an object: an empty array", "[]", NOT_AN_OBJECT],
    ["valid JSON that is not an object: null", "null", NOT_AN_OBJECT],
    ["valid JSON that is not an object: a string", '"rule-probe"', NOT_AN_OBJECT],
    ["valid JSON that is not an object: a number", "42", NOT_AN_OBJECT],
    ["valid JSON that is not an object: true", "true", NOT_AN_OBJECT],
  ])("%s", async (_name, body, message) => {
    const jobsBefore = await jobCount();
    const response = await postManifest(body);
    expectError(response, 400, "invalid_request");
    expect(response.body.error.message).toBe(message);
    expect(await jobCount()).toBe(jobsBefore);
  });

  it("a body sent without Content-Type: application/json", async () => {
    const response = await postManifest(JSON.stringify(declarative()), {
      headers: { "content-type": "text/plain" },
    });
    expectError(response, 400, "invalid_request");
    expect(response.body.error.message).toBe("Content-Type must be application/json");
  });
});

describe("a job is visible to the wallet that created it only", () => {
  it("another wallet gets 404 job_not_found for a job that exists", async () => {
    const jobId = await registerAgent(asCreator, declarative());
    const own = await settledJob(asCreator, jobId);
    expect(own.body.status).toBe("completed");

    const other = await asStranger.get(`/v1/jobs/${jobId}`);
    expectError(other, 404, "job_not_found");
    expect(other.body.error.message).toBe("No job with this id");
  });

  it("an unknown or malformed job id is 404 job_not_found", async () => {
    for (const jobId of [`job_${"0".repeat(24)}`, "job_", "nope", "%27%20or%201%3D1"]) {
      const response = await asCreator.get(`/v1/jobs/${jobId}`);
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ code: "job_not_found", status: 404 });
    }
  });

  it("without authentication a job is 401, whoever created it", async () => {
    const jobId = await registerAgent(asCreator, declarative());
    const response = await http(apiUrl).get(`/v1/jobs/${jobId}`);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("unauthorized");
    const [row] = await stack()
      .db.select({ status: jobs.status })
      .from(jobs)
      .where(eq(jobs.id, jobId));
    expect(row).toBeDefined();
  });
});
