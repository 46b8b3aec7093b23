// A declarative agent's model calls its built-in tools on the real stack: the calls it may make are
// answered from the run's input, the ones outside their scope are refused inside the run, and every
// call is recorded with the run. Private addresses are refused here as on any chain but the local one.
import { asc, eq } from "drizzle-orm";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { runToolCalls } from "../../lib/db/appSchema.ts";
import { perTaskRenter, type Renter } from "../support/connectedListing.ts";
import { type DeclarativeListing, listDeclarativeAgent } from "../support/declarativeOnStack.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 0, ponder: true });
const PRICE = parseEther("0.001");

let servers: ModelServers;
let listing: DeclarativeListing;
let renter: Renter;
beforeAll(async () => {
  servers = await startModelServers(stack());
  await stack().addApi({ ...servers.env, ALLOW_PRIVATE_ENDPOINTS: "false" });
  listing = await listDeclarativeAgent(stack(), servers, {
    name: "ledger-reader",
    provider: "openai",
    price: PRICE,
    manifest: {
      tools: [
        { name: "read_input", scope: "input_only" },
        { name: "search_input", scope: "input_only" },
        { name: "fetch_url", scope: "read_only" },
      ],
    },
  });
  renter = await perTaskRenter(stack(), listing, 4n * PRICE);
});
afterAll(() => servers?.stop());

const LEDGER = { entries: ["2026-01-03 rent 1200", "2026-01-09 coffee 4", "2026-01-21 rent 1200"] };

async function toolCallsOf(runId: string) {
  return stack()
    .db.select()
    .from(runToolCalls)
    .where(eq(runToolCalls.runId, runId))
    .orderBy(asc(runToolCalls.sequence));
}

/** What the model read back from each tool call of the last run: its last request holds them all. */
function toolAnswers() {
  const last = servers.vendor.requests.filter((request) => request.model === listing.model).at(-1);
  const body = last?.body as { messages: { role: string; content: string }[] } | undefined;
  return (body?.messages ?? [])
    .filter((message) => message.role === "tool")
    .map((message) => message.content);
}

describe("a declarative agent's tools", () => {
  it("the model calls two tools, reads their answers, and the run completes", async () => {
    servers.vendor.script(listing.model, [
      { kind: "toolCalls", calls: [{ name: "read_input", arguments: { pointer: "/entries/1" } }] },
      { kind: "toolCalls", calls: [{ name: "search_input", arguments: { text: "rent" } }] },
      { kind: "text", text: "Rent was paid twice, 2,400 in all." },
    ]);
    const response = await renter.api.post("/v1/execute", {
      agent_id: listing.agentId,
      task: "What went to rent?",
      input: LEDGER,
    });
    expect(response.body).toMatchObject({
      status: "completed",
      output: "Rent was paid twice, 2,400 in all.",
      cost_wei: Number(PRICE),
    });
    const [first, second] = toolAnswers();
    expect(first).toContain("2026-01-09 coffee 4");
    expect(second).toContain("2026-01-03 rent 1200");
    expect(second).toContain("2026-01-21 rent 1200");
    expect(second).not.toContain("coffee");

    const calls = await toolCallsOf(response.body.run_id);
    expect(calls.map(({ tool, scope, outcome }) => ({ tool, scope, outcome }))).toEqual([
      { tool: "read_input", scope: "input_only", outcome: "ok" },
      { tool: "search_input", scope: "input_only", outcome: "ok" },
    ]);
  });

  it("refuses calls outside their scope inside the run, records them, and the run goes on", async () => {
    servers.vendor.requests.length = 0;
    servers.vendor.script(listing.model, [
      {
        kind: "toolCalls",
        calls: [
          { name: "fetch_url", arguments: { url: "https://169.254.169.254/latest/meta-data/" } },
          { name: "fetch_url", arguments: { url: "https://127.0.0.1:9/" } },
          { name: "read_input", arguments: { url: "https://example.com/ledger.json" } },
          { name: "read_repo_file", arguments: { path: "README.md" } },
        ],
      },
      { kind: "text", text: "I could not fetch anything." },
    ]);
    const response = await renter.api.post("/v1/execute", {
      agent_id: listing.agentId,
      task: "Fetch the ledger",
      input: LEDGER,
    });
    expect(response.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
    for (const answer of toolAnswers()) expect(answer).toMatch(/^refused: /);

    const calls = await toolCallsOf(response.body.run_id);
    expect(calls.map(({ tool, outcome }) => ({ tool, outcome }))).toEqual([
      { tool: "fetch_url", outcome: "refused" },
      { tool: "fetch_url", outcome: "refused" },
      { tool: "read_input", outcome: "refused" },
      { tool: "read_repo_file", outcome: "refused" },
    ]);
    expect(calls[0]?.reason).toContain("not a public internet address");
    expect(calls.every((call) => call.outboundBytes === 0)).toBe(true);
  });
});
