// A renter's whole path on the real stack: a creator registers a connected agent (its webhook a real
// HTTPS server) and lists it; the renter buys each rental model with viem and runs tasks through an
// API process, a worker process over NATS JetStream and the settlement leader, which debits
// per-task runs on-chain before the answer.
import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { type Hex, parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { ONE_TIME, PER_QUERY, SUBSCRIPTION, THIRTY_DAYS } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { expectOnChainError, http, signIn } from "../support/http.ts";
import { type ReceivedRequest, startHttpsTestServer } from "../support/httpsTestServer.ts";
import { registerAgent, settledJob } from "../support/registration.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";
import { useStack } from "../support/useStack.ts";

const creator = devAccount(2);
const renter = devAccount(3);
const PRICE = parseEther("0.001");

const stack = useStack({ nats: true, api: 1, workers: 0, rateLimitPerMinute: 10_000 });
let agent: Awaited<ReturnType<typeof startHttpsTestServer>>;
/** Each agent's signing secret, by the path of its entrypoint. */
const webhookSecrets = new Map<string, string>();
let api: ReturnType<typeof http>;
const listings: Record<"oneTime" | "subscription" | "perTask", Hex> = {} as never;

/** The creator's agent: checks the marketplace's signature, then reviews the diff it was given. */
async function answer(request: ReceivedRequest, response: ServerResponse) {
  verify(request);
  const { task, input } = JSON.parse(request.body);
  if (request.headers.accept?.includes("text/event-stream") && task === "stream it") {
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const delta of ["one ", "two ", "three"])
      response.write(`data: ${JSON.stringify({ delta })}\n\n`);
    response.end(`data: ${JSON.stringify({ output: { summary: "one two three" } })}\n\n`);
    return;
  }
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify({ output: { summary: `${task}: ${input.diff.length} characters` } }));
}

function verify(request: ReceivedRequest) {
  const secret =
    webhookSecrets.get(request.path) ?? "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
}

/** Moves the chain's clock forward and mines a block at the new time. */
async function travel(seconds: number) {
  for (const [method, params] of [
    ["evm_increaseTime", [seconds]],
    ["evm_mine", []],
  ] as const) {
    await fetch(stack().anvil.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
  }
}

beforeAll(async () => {
  // Workers trust the dev CA of their DATA_DIR on the local chain: make it before they start.
  agent = await startHttpsTestServer(
    await ensureDevCertificates(stack().dir),
    (request, response) =>
      answer(request, response).catch(() => {
        response.writeHead(401).end();
      }),
  );
  await stack().addWorker();
  api = http(stack().api.url, { bearer: await signIn(stack().api.url, renter) });
  const creatorApi = http(stack().api.url, { bearer: await signIn(stack().api.url, creator) });

  const market = stack().marketplace;
  for (const [name, model] of [
    ["oneTime", ONE_TIME],
    ["subscription", SUBSCRIPTION],
    ["perTask", PER_QUERY],
  ] as const) {
    const job = await settledJob(
      creatorApi,
      await registerAgent(creatorApi, {
        name: `reviewer-${name.toLowerCase()}`,
        category: "coding",
        description: "Summarises a diff",
        model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
        entrypoint_url: agent.url(`/run/${name}`),
        input_schema: {
          type: "object",
          properties: { diff: { type: "string" } },
          required: ["diff"],
        },
        output_schema: {
          type: "object",
          properties: { summary: { type: "string" } },
          required: ["summary"],
        },
      }),
    );
    expect(job.body.status).toBe("completed");
    webhookSecrets.set(`/run/${name}`, job.body.result.webhook_secret);
    const { seed, metadata_uri, on_chain_listing_id } = job.body.result.create_listing;
    const receipt = await market.mined(
      market.as(creator).write.createListing([seed, model, PRICE, metadata_uri]),
    );
    await stack().ponder.waitForBlock(receipt.blockNumber);
    listings[name] = on_chain_listing_id;
  }
});

const run = (listing: Hex, task = "Summarise") =>
  api.post("/v1/execute", { agent_id: toApiListingId(listing), task, input: { diff: "+a\n-b" } });

describe("a renter runs a connected agent on each rental model", () => {
  it("one-time: the run completes with the agent's output and costs nothing more", async () => {
    const market = stack().marketplace;
    await market.mined(
      market.as(renter).write.purchaseOneTime([listings.oneTime], { value: PRICE }),
    );
    const reply = await run(listings.oneTime);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({
      run_id: expect.stringMatching(/^run_/),
      agent_id: toApiListingId(listings.oneTime),
      status: "completed",
      output: { summary: "Summarise: 5 characters" },
      cost_wei: 0,
      duration_ms: expect.any(Number),
    });
  });

  it("subscription: runs while it lasts, credential_expired once it lapses", async () => {
    const market = stack().marketplace;
    const value = await market
      .as(renter)
      .read.subscriptionQuote([listings.subscription, THIRTY_DAYS]);
    await market.mined(
      market.as(renter).write.purchaseSubscription([listings.subscription, THIRTY_DAYS], { value }),
    );
    expect((await run(listings.subscription)).body.status).toBe("completed");

    await travel(Number(THIRTY_DAYS) + 1);
    // The API's clock is the head the node announces, which may reach it a few milliseconds after
    // the mine returns (docs/decisions.md, "How does the API learn the chain's latest block?").
    const credential = `/v1/credentials/${toApiListingId(listings.subscription)}`;
    await expect
      .poll(async () => (await api.get(credential)).body.status, { timeout: 3_000 })
      .toBe("expired");
    expectOnChainError(
      await run(listings.subscription),
      403,
      "credential_expired",
      "CredentialExpired",
    );
  });

  it("per-task: each completed run is debited exactly its price before the answer, until the balance is gone", async () => {
    const market = stack().marketplace;
    await market.mined(
      market.as(renter).write.purchasePerQuery([listings.perTask, PRICE], { value: PRICE * 2n }),
    );
    const balance = async () =>
      (await market.as(renter).read.getAccessState([listings.perTask, renter.address])).balance;

    for (const left of [PRICE, 0n]) {
      const reply = await run(listings.perTask);
      expect(reply.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
      expect(await balance()).toBe(left);
    }
    expectOnChainError(
      await run(listings.perTask),
      403,
      "insufficient_balance",
      "InsufficientBalance",
    );
    const credential = await api.get(`/v1/credentials/${toApiListingId(listings.perTask)}`);
    expect(credential.body.status).toBe("low_balance");
  });

  it("streams the agent's deltas as output events, then one done with the run's accounting", async () => {
    const response = await fetch(`${stack().api.url}/v1/execute/stream`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${await signIn(stack().api.url, renter)}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        agent_id: toApiListingId(listings.oneTime),
        task: "stream it",
        input: { diff: "+x" },
      }),
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = eventsOf(await sseReader(response).rest());
    expect(events).toEqual([
      { event: "output", data: { delta: "one " } },
      { event: "output", data: { delta: "two " } },
      { event: "output", data: { delta: "three" } },
      {
        event: "done",
        data: {
          run_id: expect.stringMatching(/^run_/),
          status: "completed",
          cost_wei: 0,
          duration_ms: expect.any(Number),
        },
      },
    ]);
  });

  it("signed every webhook call so the creator's verifier accepts it", () => {
    expect(agent.received.length).toBeGreaterThanOrEqual(5);
    for (const request of agent.received) {
      expect(() => verify(request)).not.toThrow();
    }
  });
});
