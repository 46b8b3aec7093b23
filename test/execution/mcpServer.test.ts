// The MCP server at /mcp, driven by the official MCP SDK client over Streamable HTTP against the real
// stack: the caller's rented agents as tools, the discovery tools, runs on a connected and a
// declarative agent charged on-chain exactly as POST /v1/execute charges them (once, also when a call
// is retried under the same request id), progress notifications from a streaming agent, and a
// hostile client's requests answered with bounded errors.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  LATEST_PROTOCOL_VERSION,
  McpError,
  type Progress,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { newWallet } from "../settlement/settlementFixtures.ts";
import { type BehavingAgent, behaving, startBehavingAgent } from "../support/behavingAgent.ts";
import {
  listPerTaskAgent,
  type PerTaskListing,
  perTaskRenter,
  type Renter,
} from "../support/connectedListing.ts";
import { type DeclarativeListing, listDeclarativeAgent } from "../support/declarativeOnStack.ts";
import { createApiKey } from "../support/http.ts";
import { perTaskLedger } from "../support/perTaskLedger.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 0, ponder: true, rateLimitPerMinute: 10_000 });
const PRICE = parseEther("0.001");
const INPUT_SCHEMA = {
  type: "object",
  properties: { topic: { type: "string" }, depth: { type: "integer", minimum: 1 } },
  required: ["topic"],
};

let servers: ModelServers;
let agent: BehavingAgent;
/** Rented by `renter`: a connected agent and a declarative one, both per task. */
let connected: PerTaskListing;
let declarative: DeclarativeListing;
/** Listed, and rented by nobody. */
let unrented: PerTaskListing;
let renter: Renter;
const clients: Client[] = [];

beforeAll(async () => {
  servers = await startModelServers(stack());
  agent = await startBehavingAgent(await ensureDevCertificates(stack().dir));
  await stack().addApi(servers.env);
  connected = await listPerTaskAgent(stack(), agent, {
    name: "market-brief",
    price: PRICE,
    inputSchema: INPUT_SCHEMA,
  });
  unrented = await listPerTaskAgent(stack(), agent, { name: "unrented-agent", price: PRICE });
  declarative = await listDeclarativeAgent(stack(), servers, {
    name: "text-writer",
    provider: "openai",
    price: PRICE,
  });
  renter = await perTaskRenter(stack(), connected, 10n * PRICE);
  const bought = await stack().marketplace.mined(
    stack()
      .marketplace.as(renter.account)
      .write.purchasePerQuery([declarative.listingId, PRICE], { value: 10n * PRICE }),
  );
  // Tools are listed from the indexer's projections, as GET /v1/credentials lists credentials.
  await stack().ponder.waitForBlock(bought.blockNumber);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await agent?.close();
  await servers?.stop();
});

const mcpUrl = () => `${stack().api.url}/mcp`;

/** The official client, connected to /mcp with `bearer`. */
async function connect(bearer: string): Promise<Client> {
  const client = new Client({ name: "mcp-server-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A raw POST to /mcp, as a client that is not the SDK's may send it. */
async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(mcpUrl(), {
    method: "POST",
    headers: {
      authorization: `Bearer ${renter.bearer}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
      ...headers,
    },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const textOf = (result: CallToolResult) =>
  result.content.map((item) => (item.type === "text" ? item.text : "")).join("\n");

const balanceOf = async (listing: PerTaskListing) =>
  (await perTaskLedger(stack(), listing.listingId, renter.account.address)).balance;

describe("tools/list", () => {
  it("lists each rented agent as a tool, with the discovery tools, and no listing not rented", async () => {
    const client = await connect(renter.bearer);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(
      ["get_listing", "market-brief", "search_listings", "text-writer"].sort(),
    );
    expect(tools.some((tool) => tool._meta?.listing_id === unrented.agentId)).toBe(false);

    const brief = byName.get("market-brief") as Tool;
    expect(brief).toMatchObject({
      title: expect.any(String),
      description: expect.stringContaining("0.001 ETH"),
      inputSchema: {
        type: "object",
        properties: { task: { type: "string" }, input: INPUT_SCHEMA },
        required: ["task"],
      },
      outputSchema: { type: "object", required: ["summary"] },
      _meta: { listing_id: connected.agentId },
    });
    expect(brief.description).toContain("Answers as its task says");
    expect(brief.description).toContain("Per-Task");

    const writer = byName.get("text-writer") as Tool;
    expect(writer._meta).toEqual({ listing_id: declarative.agentId });
    expect(writer.inputSchema.properties?.input).toEqual({ type: "object" });
    // A string output: no output schema.
    expect(writer.outputSchema).toBeUndefined();
  });

  it("lists only the discovery tools for a wallet that rents nothing, over an API key too", async () => {
    const stranger = await newWallet(stack());
    const { key } = await createApiKey(stack().api.url, stranger, "mcp");
    const { tools } = await (await connect(key)).listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["get_listing", "search_listings"]);
  });

  it("answers the discovery tools as GET /v1/listings and GET /v1/listings/:id do, for free", async () => {
    const client = await connect(renter.bearer);
    const before = await balanceOf(connected);
    const search = (await client.callTool({
      name: "search_listings",
      arguments: { q: "unrented", limit: 5 },
    })) as CallToolResult;
    expect(search.isError).toBeFalsy();
    const page = search.structuredContent as { listings: { id: string }[]; limit: number };
    expect(page.limit).toBe(5);
    expect(page.listings.map((listing) => listing.id)).toContain(unrented.agentId);
    const rest = await renter.api.get("/v1/listings?q=unrented&limit=5");
    expect(JSON.parse(textOf(search))).toEqual(rest.body);

    const detail = (await client.callTool({
      name: "get_listing",
      arguments: { id: unrented.agentId },
    })) as CallToolResult;
    expect(JSON.parse(textOf(detail))).toEqual(
      (await renter.api.get(`/v1/listings/${unrented.agentId}`)).body,
    );
    const missing = (await client.callTool({
      name: "get_listing",
      arguments: { id: `lst_${"0".repeat(64)}` },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^listing_not_found: /);
    expect(await balanceOf(connected)).toBe(before);
  });
});

describe("tools/call", () => {
  it("runs a task on a connected agent, charging its price once", async () => {
    const client = await connect(renter.bearer);
    const before = await balanceOf(connected);
    const result = (await client.callTool({
      name: "market-brief",
      arguments: {
        task: behaving({ output: { summary: "chips rose" } }),
        input: { topic: "chips" },
      },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ summary: "chips rose" });
    expect(JSON.parse(textOf(result))).toEqual({ summary: "chips rose" });
    expect(result._meta).toMatchObject({
      run_id: expect.stringMatching(/^run_/),
      agent_id: connected.agentId,
      status: "completed",
      cost_wei: PRICE.toString(),
    });
    expect(await balanceOf(connected)).toBe(before - PRICE);
  });

  it("runs a task on a declarative agent, charging its price once", async () => {
    servers.vendor.script(declarative.model, [{ kind: "text", text: "Banks fell 1% on rates." }]);
    const client = await connect(renter.bearer);
    const before = await balanceOf(declarative);
    const result = (await client.callTool({
      name: "text-writer",
      arguments: { task: "Brief me on banks", input: {} },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "Banks fell 1% on rates." }]);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta).toMatchObject({ status: "completed", cost_wei: PRICE.toString() });
    expect(await balanceOf(declarative)).toBe(before - PRICE);
  });

  it("is one run, charged once, when a call is retried with the same request id", async () => {
    const client = await connect(renter.bearer);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId;
    expect(sessionId).toEqual(expect.any(String));
    const before = await perTaskLedger(stack(), connected.listingId, renter.account.address);
    const call = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "market-brief", arguments: { task: behaving({ delayMs: 200 }) } },
      });
    const session = { "mcp-session-id": sessionId as string };
    // The first try and its retry at once, as a client whose connection dropped sends it again.
    const [first, retried] = await Promise.all([post(call(41), session), post(call(41), session)]);
    const again = await post(call(41), session);
    const runIds = [first, retried, again].map((answer) => {
      expect(answer.status, answer.text).toBe(200);
      const message = JSON.parse(answer.text);
      expect(message).toMatchObject({ id: 41, result: { _meta: { status: "completed" } } });
      return message.result._meta.run_id;
    });
    expect(new Set(runIds).size).toBe(1);
    const after = await perTaskLedger(stack(), connected.listingId, renter.account.address);
    expect(after.balance).toBe(before.balance - PRICE);
    expect(after.debits.size).toBe(before.debits.size + 1);
    expect(agent.callsOf(runIds[0])).toBe(1);

    // Another request id is another run, charged again.
    const other = JSON.parse((await post(call(42), session)).text);
    expect(other.result._meta.run_id).not.toBe(runIds[0]);
    expect(await balanceOf(connected)).toBe(before.balance - 2n * PRICE);
  });

  it("refuses a listing the caller has no credential for with credential_not_found, charging nothing", async () => {
    const client = await connect(renter.bearer);
    const result = (await client.callTool({
      name: unrented.agentId,
      arguments: { task: behaving() },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^credential_not_found: /);
    expect(result._meta).toMatchObject({ error: { code: "credential_not_found", status: 403 } });
    expect(await balanceOf(unrented)).toBe(0n);
  });

  it("answers a run the agent fails with isError and the reason, charging nothing", async () => {
    const client = await connect(renter.bearer);
    const before = await balanceOf(connected);
    const result = (await client.callTool({
      name: "market-brief",
      arguments: { task: behaving({ status: 500 }) },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^The run failed: /);
    expect(result._meta).toMatchObject({ status: "failed", cost_wei: "0" });
    expect(await balanceOf(connected)).toBe(before);
  });

  it("relays a streaming agent's deltas as progress notifications", async () => {
    const client = await connect(renter.bearer);
    const deltas = ["Chips ", "rose ", "2% ", "today."];
    const progress: Progress[] = [];
    const result = (await client.callTool(
      {
        name: "market-brief",
        arguments: { task: behaving({ deltas, deltaGapMs: 30, output: { summary: "up" } }) },
      },
      undefined,
      { onprogress: (update) => progress.push(update) },
    )) as CallToolResult;
    expect(result.structuredContent).toEqual({ summary: "up" });
    expect(progress.map((update) => update.message)).toEqual(deltas);
    const received = deltas.map((_, i) => deltas.slice(0, i + 1).join("").length);
    expect(progress.map((update) => update.progress)).toEqual(received);
  });
});

describe("authentication", () => {
  it("refuses a request without a bearer with the spec's 401", async () => {
    const response = await fetch(mcpUrl(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: "unauthorized", message: expect.any(String), status: 401 },
    });
    await expect(connect("not-a-token")).rejects.toThrow(/401/);
  });

  it("runs nothing for an API key without the run scope", async () => {
    const { key } = await createApiKey(stack().api.url, renter.account, "read-only", ["read"]);
    const client = await connect(key);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("market-brief");
    const result = (await client.callTool({
      name: "market-brief",
      arguments: { task: behaving() },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^forbidden: /);
  });
});

describe("a hostile client", () => {
  /** An answer is bounded: a short JSON-RPC error, never a stack trace. */
  function expectRpcError(answer: { status: number; text: string }, status: number, code: number) {
    expect(answer.status, answer.text).toBe(status);
    expect(answer.text.length).toBeLessThan(1_000);
    expect(answer.text).not.toMatch(/\n\s+at /);
    expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: "2.0", error: { code } });
  }

  it("gets bounded JSON-RPC errors, and the server stays healthy", async () => {
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    const batch = Array.from({ length: 1_000 }, (_, i) => ping(i));
    expectRpcError(await post(JSON.stringify(batch)), 400, -32600);
    const eleven = JSON.stringify(batch.slice(0, 11));
    expectRpcError(await post(eleven), 400, -32600);
    expect(JSON.parse((await post(JSON.stringify(batch.slice(0, 10)))).text)).toHaveLength(10);
    expectRpcError(await post("[]"), 400, -32600);
    expectRpcError(await post('{"jsonrpc": "2.0", "id": 1, "method": '), 400, -32700);
    expectRpcError(await post(JSON.stringify({ hello: "world" })), 400, -32700);
    expectRpcError(
      await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "nope" })),
      200,
      -32601,
    );

    const callNamed = (name: string, args: unknown = { task: "x" }) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name, arguments: args },
      });
    expectRpcError(await post(callNamed("no-such-tool")), 200, -32602);
    await expect(
      (await connect(renter.bearer)).callTool({ name: "no-such-tool", arguments: { task: "x" } }),
    ).rejects.toThrow(McpError);
    expectRpcError(await post(callNamed("x".repeat(20_000))), 200, -32602);

    // Input past POST /v1/execute's bound, in a body within the app's.
    const oversized = JSON.parse(
      (
        await post(
          callNamed("market-brief", {
            task: "x",
            input: { topic: "x".repeat(50_000) },
          }),
        )
      ).text,
    );
    expect(oversized.result.isError).toBe(true);
    expect(oversized.result.content[0].text).toMatch(/^invalid_request: input: must be at most/);
    const untyped = JSON.parse((await post(callNamed("market-brief", { task: 3 }))).text);
    expect(untyped.result.content[0].text).toMatch(/^invalid_request: task: /);

    // A body past the app's limit: the spec's 413.
    const huge = await post(callNamed("market-brief", { task: "x".repeat(70_000) }));
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.text)).toMatchObject({ error: { code: "payload_too_large" } });

    expect((await fetch(`${stack().api.url}/healthz`)).status).toBe(200);
    const { tools } = await (await connect(renter.bearer)).listTools();
    expect(tools.map((tool) => tool.name)).toContain("market-brief");
  });

  it("is told a stateless server offers no event stream and no session to end", async () => {
    const response = await fetch(mcpUrl(), {
      headers: { authorization: `Bearer ${renter.bearer}`, accept: "text/event-stream" },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    const client = await connect(renter.bearer);
    await expect(
      (client.transport as StreamableHTTPClientTransport).terminateSession(),
    ).resolves.toBeUndefined();
  });
});
