// Declarative agents end to end on the real stack, for each of the three providers: the renter's
// request through the API, the worker's call through the vendor's official client to the emulator,
// the answer back synchronously or streamed, and a per-task debit of exactly the price.
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { MODEL_PROVIDERS } from "../../lib/manifest/validateManifest.ts";
import { perTaskRenter, type Renter } from "../support/connectedListing.ts";
import {
  type DeclarativeListing,
  listDeclarativeAgent,
  serverOf,
} from "../support/declarativeOnStack.ts";
import { startHttpsTestServer } from "../support/httpsTestServer.ts";
import { expectBooksBalance } from "../support/perTaskAccounts.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 0, ponder: true });
const PRICE = parseEther("0.001");
const FINDINGS = {
  type: "object",
  properties: { findings: { type: "array", items: { type: "string" } } },
  required: ["findings"],
};

const LEDGER_TEXT = "2026-01-03 rent 1200\n2026-01-09 coffee 4\n";

let servers: ModelServers;
/** Where a renter keeps an input too large to send: an HTTPS page on loopback (the local chain). */
let pages: Awaited<ReturnType<typeof startHttpsTestServer>>;
beforeAll(async () => {
  servers = await startModelServers(stack());
  pages = await startHttpsTestServer(await ensureDevCertificates(stack().dir), (_, response) => {
    response.writeHead(200, { "content-type": "text/plain" }).end(LEDGER_TEXT);
  });
  await stack().addApi(servers.env);
});
afterAll(async () => {
  await servers?.stop();
  await pages?.close();
});

async function streamed(renter: Renter, listing: DeclarativeListing, task: string) {
  const response = await fetch(`${stack().api.url}/v1/execute/stream`, {
    method: "POST",
    headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ agent_id: listing.agentId, task, input: {} }),
  });
  expect(response.status).toBe(200);
  const events = eventsOf(await sseReader(response).rest());
  const text = events
    .filter((event) => event.event === "output")
    .map((event) => (event.data as { delta: string }).delta)
    .join("");
  return { text, done: events.at(-1) };
}

describe.each(MODEL_PROVIDERS)("a declarative agent on %s", (provider) => {
  let text: DeclarativeListing;
  let object: DeclarativeListing;
  let renter: Renter;

  beforeAll(async () => {
    text = await listDeclarativeAgent(stack(), servers, {
      name: `brief-${provider.replace("_", "-")}`,
      provider,
      price: PRICE,
    });
    object = await listDeclarativeAgent(stack(), servers, {
      name: `audit-${provider.replace("_", "-")}`,
      provider,
      price: PRICE,
      manifest: { output_schema: FINDINGS },
    });
    renter = await perTaskRenter(stack(), text, 4n * PRICE);
    await stack().marketplace.mined(
      stack()
        .marketplace.as(renter.account)
        .write.purchasePerQuery([object.listingId, PRICE], { value: 4n * PRICE }),
    );
  });

  it("answers a text output, charging the price once", async () => {
    serverOf(servers, text).script(text.model, [{ kind: "text", text: "Chips rose 2% today." }]);
    const response = await renter.api.post("/v1/execute", {
      agent_id: text.agentId,
      task: "Brief me",
      input: { sector: "chips" },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({
      run_id: expect.stringMatching(/^run_/),
      agent_id: text.agentId,
      status: "completed",
      output: "Chips rose 2% today.",
      cost_wei: Number(PRICE),
      duration_ms: expect.any(Number),
    });
  });

  it("streams a text output whose deltas make up the output", async () => {
    serverOf(servers, text).script(text.model, [
      { kind: "text", text: ["Banks ", "fell ", "1% ", "on ", "rates."] },
    ]);
    const { text: deltas, done } = await streamed(renter, text, "Brief me on banks");
    expect(deltas).toBe("Banks fell 1% on rates.");
    expect(done).toEqual({
      event: "done",
      data: {
        run_id: expect.stringMatching(/^run_/),
        status: "completed",
        cost_wei: Number(PRICE),
        duration_ms: expect.any(Number),
      },
    });
  });

  it("answers an object output conforming to its output_schema, streamed or not", async () => {
    const findings = { findings: ["withdraw() sends ETH before zeroing the balance"] };
    serverOf(servers, object).script(object.model, [
      { kind: "json", value: findings },
      { kind: "json", value: findings },
    ]);
    const response = await renter.api.post("/v1/execute", {
      agent_id: object.agentId,
      task: "Audit this",
      input: {},
    });
    expect(response.body).toMatchObject({ status: "completed", output: findings });

    const { text: deltas, done } = await streamed(renter, object, "Audit this again");
    expect(JSON.parse(deltas)).toEqual(findings);
    expect(done).toMatchObject({ data: { status: "completed", cost_wei: Number(PRICE) } });
  });

  it("an answer that breaks its output_schema once streamed fails, charged: it reached the renter", async () => {
    serverOf(servers, object).script(object.model, [{ kind: "json", value: { findings: 3 } }]);
    const response = await renter.api.post("/v1/execute", {
      agent_id: object.agentId,
      task: "Audit this",
      input: {},
    });
    expect(response.body).toMatchObject({ status: "failed", cost_wei: Number(PRICE) });
    // What was streamed, kept as the text it was: not parsed into the object it spells.
    expect(JSON.parse(response.body.output)).toEqual({ findings: 3 });
  });

  it("the balance fell by exactly the price of each run that delivered output", async () => {
    await expectBooksBalance(stack(), text, [renter]);
    await expectBooksBalance(stack(), object, [renter]);
  });
});

it("reads a run's input_uri through the guard and gives the model its text as the input", async () => {
  const listing = await listDeclarativeAgent(stack(), servers, {
    name: "uri-reader",
    provider: "openai",
    price: PRICE,
  });
  const renter = await perTaskRenter(stack(), listing, PRICE);
  const response = await renter.api.post("/v1/execute", {
    agent_id: listing.agentId,
    task: "Sum the ledger",
    input_uri: pages.url("/ledger.txt"),
  });
  expect(response.body).toMatchObject({ status: "completed" });
  const [request] = servers.vendor.requests.filter((sent) => sent.model === listing.model);
  expect(JSON.stringify(request?.body)).toContain(
    JSON.stringify(`Task:\nSum the ledger\n\n<input>\n${LEDGER_TEXT}\n</input>`),
  );
});
