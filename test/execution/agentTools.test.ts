// GET /v1/tools on the real stack: each listing the caller may run as a function-calling tool of its
// own, in OpenAI's and Anthropic's forms, typed by the agent's input schema; a call's arguments, as
// a model would fill them in, are the POST /v1/execute body that runs it, charged once.
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { newWallet } from "../settlement/settlementFixtures.ts";
import { behaving } from "../support/behavingAgent.ts";
import { listPerTaskAgent, type PerTaskListing, type Renter } from "../support/connectedListing.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { perTaskLedger } from "../support/perTaskLedger.ts";

const PRICE = parseEther("0.001");
const INPUT_SCHEMA = {
  type: "object",
  properties: { topic: { type: "string" } },
  required: ["topic"],
};
const { stack, agent, listing, addRenter } = usePerTaskAgentOnStack({
  name: "market-brief",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});
let unrented: PerTaskListing;
let renter: Renter;

beforeAll(async () => {
  unrented = await listPerTaskAgent(stack(), agent(), {
    name: "unrented-agent",
    price: PRICE,
    inputSchema: INPUT_SCHEMA,
  });
  renter = await addRenter(10n * PRICE);
  // Tools are listed from the indexer's projections, as GET /v1/credentials lists credentials.
  await stack().ponder.waitForBlock(await stack().marketplace.publicClient.getBlockNumber());
});

describe("GET /v1/tools", () => {
  it("gives each rented agent as an OpenAI function whose arguments are the execute body", async () => {
    const reply = await renter.api.get("/v1/tools?format=openai");
    expect(reply.status).toBe(200);
    const { tools } = reply.body;
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool).toMatchObject({
      type: "function",
      function: {
        name: "market-brief",
        parameters: {
          type: "object",
          properties: {
            agent_id: {
              type: "string",
              const: expect.stringMatching(/^market-brief-[0-9a-f]{8}$/),
            },
            task: { type: "string" },
            input: { type: "object" },
          },
          required: ["agent_id", "task"],
          additionalProperties: false,
        },
      },
    });
    expect(tool.function.description).toContain("0.001 ETH");
    expect(JSON.stringify(tools)).not.toContain(unrented.agentId);

    // The arguments a model fills in are the body that runs the agent, charged its price once.
    const before = await perTaskLedger(stack(), listing().listingId, renter.account.address);
    const args = {
      agent_id: tool.function.parameters.properties.agent_id.const,
      task: behaving({ output: { summary: "brief" } }),
    };
    const run = await renter.api.post("/v1/execute", args);
    expect(run.body).toMatchObject({ status: "completed", output: { summary: "brief" } });
    const after = await perTaskLedger(stack(), listing().listingId, renter.account.address);
    expect(after.balance).toBe(before.balance - PRICE);
  });

  it("gives the same tools in Anthropic's form, the agent's input schema as it was registered", async () => {
    const typed = await addRenter(PRICE);
    const bought = await stack().marketplace.mined(
      stack()
        .marketplace.as(typed.account)
        .write.purchasePerQuery([unrented.listingId, PRICE], { value: PRICE }),
    );
    await stack().ponder.waitForBlock(bought.blockNumber);
    const { tools } = (await typed.api.get("/v1/tools?format=anthropic")).body;
    expect(tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
      "market-brief",
      "unrented-agent",
    ]);
    expect(tools.find((tool: { name: string }) => tool.name === "unrented-agent")).toMatchObject({
      name: "unrented-agent",
      input_schema: { properties: { input: INPUT_SCHEMA } },
    });
  });

  it("is empty for a wallet that rents nothing, and 400 for an unknown format", async () => {
    const stranger = http(stack().api.url, {
      bearer: await signIn(stack().api.url, await newWallet(stack())),
    });
    expect((await stranger.get("/v1/tools")).body).toEqual({ tools: [] });
    expectError(await stranger.get("/v1/tools?format=gemini"), 400, "invalid_request");
    expectError(await http(stack().api.url).get("/v1/tools"), 401, "unauthorized");
  });
});
