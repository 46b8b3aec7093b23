// The toolbox a run's function-calling loop calls, on a real Postgres and real HTTPS servers: the
// attacks a model (or a renter's input steering it) may try, the run's limits, and the record.
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToolCalls } from "../../../../lib/db/appSchema.ts";
import { connectProjections } from "../../../../lib/db/projections.ts";
import { TOOL_CATALOG, TOOL_NAMES, type ToolName } from "../../../../lib/manifest/toolCatalog.ts";
import { startPageServer } from "../../../../test/support/pageServer.ts";
import { useStack } from "../../../../test/support/useStack.ts";
import { PUBLIC_ONLY } from "../../outbound/outboundPolicy.ts";
import { openToolbox, type ToolboxOptions } from "./toolbox.ts";

const stack = useStack({ chain: false });
/** Never sent to the model's record: it stands for what a tool reads. */
const PAGE_SECRET = "PAGE-CONTENT-7c1f";
const INPUT_SECRET = "INPUT-CONTENT-2b9e";
/** What the page server's /collect saw: where a sent-out query string would arrive. */
const collected: string[] = [];

let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/page": { body: `hello ${PAGE_SECRET}` },
    "/64k": { body: "k".repeat(64 * 1024) },
    "/octo/hello/HEAD/README.md": { body: "# hello\n" },
    "/other/secrets/HEAD/token.txt": { body: "never read" },
    "/hang": () => {},
    "/links": (_, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(`<a href="${server.url("/collect")}?ref=page-7&amp;lang=en">more</a>`);
    },
    "/collect": (request, response) => {
      collected.push(request.path);
      response.writeHead(200, { "content-type": "text/plain" }).end("thanks");
    },
  });
});
afterAll(() => server.close());

let runs = 0;
const ALL_TOOLS = [
  { name: "read_input", scope: "input_only" },
  { name: "search_input", scope: "input_only" },
  { name: "fetch_url", scope: "read_only" },
  { name: "read_repo_file", scope: "repo_scoped" },
] as const;

/** A toolbox for a run of its own, with the manifest's `tools`, against the page server. */
function toolbox(overrides: Partial<ToolboxOptions> = {}) {
  const run = overrides.run ?? {
    runId: `run_tools_${++runs}`,
    input: { repository: "octo/hello", note: INPUT_SECRET },
  };
  const box = openToolbox({
    tools: [...ALL_TOOLS],
    run,
    policy: server.policy,
    repositoryBaseUrl: server.url(),
    db: stack().db,
    signal: AbortSignal.timeout(10_000),
    ...overrides,
  });
  return { ...box, runId: run.runId };
}

async function recordOf(runId: string) {
  return stack()
    .db.select()
    .from(runToolCalls)
    .where(eq(runToolCalls.runId, runId))
    .orderBy(asc(runToolCalls.sequence));
}

describe("the toolbox offers the manifest's tools only", () => {
  it("defines each tool the manifest names, with its description and parameters", () => {
    const { definitions } = toolbox();
    expect(definitions.map(({ name }) => name)).toEqual(ALL_TOOLS.map(({ name }) => name));
    const fetchUrl = definitions.find(({ name }) => name === "fetch_url");
    expect(fetchUrl).toEqual({
      name: "fetch_url",
      description: "GETs a public HTTPS URL and reads its text, a page at a time.",
      parameters: {
        type: "object",
        properties: { url: expect.any(Object), offset: expect.any(Object) },
        required: ["url"],
        additionalProperties: false,
      },
    });
  });

  it("offers no tool the catalogue lacks, nor one in another scope than its own", () => {
    const { definitions } = toolbox({
      tools: [
        { name: "shell", scope: "read_only" },
        { name: "fetch_url", scope: "input_only" },
        { name: "search_input", scope: "input_only" },
      ],
    });
    expect(definitions.map(({ name }) => name)).toEqual(["search_input"]);
  });

  it("refuses, and records, a call to a tool the manifest does not name or that does not exist", async () => {
    const box = toolbox({ tools: [{ name: "read_input", scope: "input_only" }] });
    expect(await box.call("fetch_url", '{"url":"https://example.com/"}')).toBe(
      "refused: the agent has no tool of that name; its tools are: read_input",
    );
    expect(await box.call("run_shell", '{"command":"id"}')).toBe(
      "refused: the agent has no tool of that name; its tools are: read_input",
    );
    expect(await box.call("../../etc/passwd", "{}")).toMatch(/^refused: /);
    expect(
      (await recordOf(box.runId)).map(({ tool, scope, outcome }) => ({ tool, scope, outcome })),
    ).toEqual([
      { tool: "fetch_url", scope: null, outcome: "refused" },
      { tool: "run_shell", scope: null, outcome: "refused" },
      { tool: "(invalid name)", scope: null, outcome: "refused" },
    ]);
  });
});

describe("the toolbox checks a call's arguments against the tool's parameters", () => {
  it.each([
    ["not JSON", "{url:", "refused: the arguments are not JSON"],
    [
      "an array",
      "[]",
      "refused: the arguments do not fit the tool's parameters: arguments must be object",
    ],
    [
      "a missing parameter",
      "{}",
      "refused: the arguments do not fit the tool's parameters: arguments must have required property 'url'",
    ],
    [
      "a parameter of the wrong type",
      '{"url":42}',
      "refused: the arguments do not fit the tool's parameters: arguments/url must be string",
    ],
    [
      "a parameter it does not take",
      '{"url":"https://example.com/","headers":{"authorization":"x"}}',
      "refused: the arguments do not fit the tool's parameters: arguments must NOT have additional properties",
    ],
    [
      "arguments over 16 KB",
      JSON.stringify({ url: "x".repeat(17_000) }),
      "refused: the arguments are larger than 16 KB",
    ],
  ])("refuses %s", async (_kind, rawArguments, answer) => {
    const box = toolbox();
    const before = server.received.length;
    expect(await box.call("fetch_url", rawArguments)).toBe(answer);
    expect(server.received.length).toBe(before);
    const [row] = await recordOf(box.runId);
    expect(row).toMatchObject({
      outcome: "refused",
      argumentBytes: Buffer.byteLength(rawArguments),
    });
  });

  it("takes no arguments at all as none", async () => {
    expect(await toolbox().call("read_input", "")).toContain(INPUT_SECRET);
  });
});

describe("attacks through the tools are refused and recorded", () => {
  it.each([
    ["loopback", "https://127.0.0.1/", undefined],
    ["the cloud metadata address", "https://169.254.169.254/latest/meta-data/iam/", undefined],
    ["a name resolving to 10.0.0.1", "https://intranet.example.com/", "10.0.0.1"],
  ])("fetch_url to %s", async (_kind, url, resolvesTo) => {
    const box = toolbox({
      policy: PUBLIC_ONLY,
      ...(resolvesTo && { lookup: async () => [{ address: resolvesTo, family: 4 }] }),
    });
    expect(await box.call("fetch_url", JSON.stringify({ url }))).toBe(
      "refused: the endpoint's address is not a public internet address",
    );
    const [row] = await recordOf(box.runId);
    expect(row).toMatchObject({
      sequence: 1,
      tool: "fetch_url",
      scope: "read_only",
      outcome: "refused",
      reason: "the endpoint's address is not a public internet address",
      outboundBytes: 0,
    });
  });

  it("fetch_url to loopback on the page server's port, refused though a server listens", async () => {
    const box = toolbox({ policy: PUBLIC_ONLY });
    const before = server.received.length;
    expect(await box.call("fetch_url", JSON.stringify({ url: server.url("/page") }))).toMatch(
      /^refused: /,
    );
    expect(server.received.length).toBe(before);
  });

  it.each([
    [
      "../ out of the repository",
      { path: "../../other/secrets/HEAD/token.txt" },
      "refused: the path leaves the repository (..)",
    ],
    [
      "another owner's repository as an argument",
      { path: "token.txt", repository: "other/secrets" },
      "refused: the arguments do not fit the tool's parameters: arguments must NOT have additional properties",
    ],
    [
      "an absolute path",
      { path: "/other/secrets/HEAD/token.txt" },
      "refused: the path is absolute; give it from the repository's root",
    ],
  ])("read_repo_file with %s", async (_kind, args, answer) => {
    const box = toolbox();
    const before = server.received.length;
    expect(await box.call("read_repo_file", JSON.stringify(args))).toBe(answer);
    expect(server.received.length).toBe(before);
    expect((await recordOf(box.runId))[0]).toMatchObject({
      outcome: "refused",
      scope: "repo_scoped",
    });
  });

  it("read_repo_file reads the input's repository, and only that", async () => {
    const box = toolbox();
    expect(await box.call("read_repo_file", '{"path":"README.md"}')).toBe("# hello\n");
    expect(server.received.at(-1)?.path).toBe("/octo/hello/HEAD/README.md");
  });

  it("an input_only tool asked for a URL reads nothing outside", async () => {
    const box = toolbox();
    const before = server.received.length;
    const url = server.url("/page");
    expect(await box.call("read_input", JSON.stringify({ pointer: url }))).toBe(
      "failed: nothing in the input is at that pointer",
    );
    expect(await box.call("search_input", JSON.stringify({ text: url }))).toBe(
      "No line contains that text.",
    );
    expect(server.received.length).toBe(before);
    expect((await recordOf(box.runId)).map(({ outboundBytes }) => outboundBytes)).toEqual([0, 0]);
  });
});

describe("finding M-3: query strings the model writes reach only the manifest's tool_domains", () => {
  // The page server answers at 127.0.0.1 and at localhost; only localhost is listed.
  const listed = { toolDomains: ["localhost"] };
  const fetchOf = (url: string) => JSON.stringify({ url });
  const THANKS = "[text/plain]\nthanks";

  it("refuses, unsent, a query string of the model's own on a host outside tool_domains", async () => {
    collected.length = 0;
    const box = toolbox(listed);
    const url = `${server.url("/collect")}?d=${encodeURIComponent(INPUT_SECRET)}`;
    expect(await box.call("fetch_url", fetchOf(url))).toMatch(
      /^refused: the URL, with its query string, is not one the task, the input or a page read gave, and 127\.0\.0\.1 is not one of the agent's tool_domains/,
    );
    expect(await box.call("fetch_url", fetchOf(`${server.url("/collect")}?`))).toBe(THANKS);
    expect(collected).toEqual(["/collect"]);
    const [refused] = await recordOf(box.runId);
    expect(refused).toMatchObject({ tool: "fetch_url", outcome: "refused", outboundBytes: 0 });
  });

  it("sends a query string of the model's own to a host of tool_domains, or a subdomain of one", async () => {
    collected.length = 0;
    const box = toolbox(listed);
    const url = `${server.url("/collect", "localhost")}?q=rent`;
    expect(await box.call("fetch_url", fetchOf(url))).toBe(THANKS);
    const sub = toolbox({
      toolDomains: ["example.com"],
      lookup: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    // The name resolves to the server, whose certificate does not name it: the query was let through.
    expect(
      await sub.call("fetch_url", fetchOf("https://api.example.com:1/collect?q=rent")),
    ).not.toMatch(/tool_domains/);
    expect(collected).toEqual(["/collect?q=rent"]);
  });

  it("follows a query string copied whole from a page read, the input or the task", async () => {
    collected.length = 0;
    const box = toolbox({
      ...listed,
      run: {
        runId: `run_tools_${++runs}`,
        task: `Read ${server.url("/collect")}?from=task`,
        input: { link: `${server.url("/collect")}?from=input`, secret: "?d=INPUT" },
      },
    });
    expect(await box.call("fetch_url", fetchOf(server.url("/links")))).toContain("ref=page-7");
    for (const query of ["ref=page-7&lang=en", "from=input", "from=task"]) {
      expect(await box.call("fetch_url", fetchOf(`${server.url("/collect")}?${query}`))).toBe(
        THANKS,
      );
    }
    const composed = `${server.url("/collect")}?ref=page-7&lang=en&x=1`;
    expect(await box.call("fetch_url", fetchOf(composed))).toMatch(/^refused: /);
    // A piece of the input is no link the input gave: sent as a query, it is refused.
    expect(await box.call("fetch_url", fetchOf(`${server.url("/collect")}?d=INPUT`))).toMatch(
      /^refused: /,
    );
    expect(collected).toEqual([
      "/collect?ref=page-7&lang=en",
      "/collect?from=input",
      "/collect?from=task",
    ]);
  });
});

describe("the toolbox keeps a run within its limits", () => {
  it("refuses calls past the run's steps, recording them", async () => {
    const box = toolbox({ limits: { maxSteps: 2 } });
    await box.call("read_input", "{}");
    await box.call("search_input", '{"text":"x"}');
    expect(await box.call("read_input", "{}")).toBe(
      "refused: the run has made the 2 tool calls it may make",
    );
    expect((await recordOf(box.runId)).map(({ outcome }) => outcome)).toEqual([
      "ok",
      "ok",
      "refused",
    ]);
  });

  it("reads no more from outside than the run's allowance, then refuses", async () => {
    const box = toolbox({ limits: { maxOutboundBytes: 100 * 1024 } });
    const url = JSON.stringify({ url: server.url("/64k") });
    expect(await box.call("fetch_url", url)).toMatch(/^\[text\/plain\]\n/);
    expect(await box.call("fetch_url", url)).toMatch(
      /^\[text\/plain; only its first 36 KB were read\]\n/,
    );
    expect(await box.call("fetch_url", url)).toBe(
      "refused: the run has read all 100 KB its tools may read from outside",
    );
    const record = await recordOf(box.runId);
    expect(record.map(({ outcome }) => outcome)).toEqual(["ok", "ok", "refused"]);
    expect(record[0]?.outboundBytes).toBe(64 * 1024);
    expect(record[1]?.outboundBytes).toBeGreaterThanOrEqual(36 * 1024);
    expect(record[2]?.outboundBytes).toBe(0);
  });

  it("shares the allowance between calls running at once", async () => {
    const box = toolbox({ limits: { maxOutboundBytes: 100 * 1024, maxSteps: 10 } });
    const url = JSON.stringify({ url: server.url("/64k") });
    const answers = await Promise.all(Array.from({ length: 4 }, () => box.call("fetch_url", url)));
    expect(
      answers.filter((answer) => answer.startsWith("refused: ")).length,
    ).toBeGreaterThanOrEqual(2);
    const record = await recordOf(box.runId);
    expect(record.map(({ sequence }) => sequence)).toEqual([1, 2, 3, 4]);
    const total = record.reduce((sum, { outboundBytes }) => sum + outboundBytes, 0);
    expect(total).toBeLessThan(100 * 1024 + 64 * 1024);
  });

  it("cuts what the model reads back to the result size", async () => {
    const box = toolbox({
      run: { runId: `run_tools_${++runs}`, input: "word ".repeat(5000) },
      limits: { maxResultBytes: 1024 },
    });
    const answer = await box.call("read_input", "{}");
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(1024);
    expect((await recordOf(box.runId))[0]?.resultBytes).toBe(Buffer.byteLength(answer));
  });

  it("refuses a call once the run's signal has aborted, and fails one under way when it does", async () => {
    const aborted = toolbox({ signal: AbortSignal.abort() });
    expect(await aborted.call("read_input", "{}")).toBe("refused: the run's deadline has passed");

    const box = toolbox({ signal: AbortSignal.timeout(300) });
    const started = Date.now();
    expect(await box.call("fetch_url", JSON.stringify({ url: server.url("/hang") }))).toBe(
      "failed: the run's deadline passed before the endpoint finished answering",
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await recordOf(box.runId))[0]).toMatchObject({ outcome: "failed", tool: "fetch_url" });
  });
});

describe("the record of a run's tool calls", () => {
  it("holds each call's accounting and never what the tool read or was asked", async () => {
    const box = toolbox();
    const args = JSON.stringify({ url: server.url("/page") });
    const answer = await box.call("fetch_url", args);
    expect(answer).toContain(PAGE_SECRET);
    expect(await box.call("read_input", "{}")).toContain(INPUT_SECRET);
    const record = await recordOf(box.runId);
    expect(record[0]).toEqual({
      runId: box.runId,
      sequence: 1,
      tool: "fetch_url",
      scope: "read_only",
      outcome: "ok",
      reason: null,
      argumentBytes: Buffer.byteLength(args),
      resultBytes: Buffer.byteLength(answer),
      outboundBytes: Buffer.byteLength(`hello ${PAGE_SECRET}`),
      durationMs: expect.any(Number),
      calledAt: expect.any(Date),
    });
    const stored = JSON.stringify(record);
    for (const secret of [PAGE_SECRET, INPUT_SECRET, "/page"]) expect(stored).not.toContain(secret);
  });

  it("withholds a call's answer when the call cannot be recorded", async () => {
    const closed = connectProjections(stack().postgres.databaseUrl);
    await closed.close();
    const box = toolbox({ db: closed.db });
    expect(await box.call("read_input", "{}")).toBe(
      "failed: the call could not be recorded, so what it read is withheld",
    );
  });
});

describe("every built-in tool", () => {
  it("is offered with a definition, and takes arguments that fit it", async () => {
    const box = toolbox({
      tools: TOOL_NAMES.map((name) => ({ name, scope: TOOL_CATALOG[name].scope })),
      limits: { maxSteps: TOOL_NAMES.length },
    });
    expect(box.definitions.map(({ name }) => name)).toEqual(TOOL_NAMES);
    const calls = {
      read_input: {},
      read_input_lines: { from: 1 },
      search_input: { text: "hello" },
      outline_input: {},
      fetch_url: { url: server.url("/page") },
      fetch_json: { url: server.url("/page") },
      search_url: { url: server.url("/page"), text: "hello" },
      read_repo_file: { path: "README.md" },
      read_repo_file_lines: { path: "README.md", from: 1 },
      search_repo_file: { path: "README.md", text: "hello" },
    } satisfies Record<ToolName, Record<string, unknown>>;
    for (const [name, args] of Object.entries(calls)) {
      expect(await box.call(name, JSON.stringify(args))).not.toMatch(/^refused: /);
    }
  });
});
