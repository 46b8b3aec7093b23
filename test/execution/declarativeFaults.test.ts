// A vendor's faults reach the renter as a run's outcome, never as a failed request: rate limits are
// retried within the deadline, an outage fails the run uncharged, a cut stream fails it charged (its
// part streamed reached the renter), and the run's timeout stops a slow model at the timeout.
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { NO_VENDOR_CREDENTIALS } from "../../workers/execution/declarative/vendorChatModel.ts";
import { perTaskRenter, type Renter } from "../support/connectedListing.ts";
import { type DeclarativeListing, listDeclarativeAgent } from "../support/declarativeOnStack.ts";
import { expectBooksBalance } from "../support/perTaskAccounts.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 0, ponder: true });
const PRICE = parseEther("0.001");

let servers: ModelServers;
let listing: DeclarativeListing;
/** A listing of its own, since the outage leaves unused failures in its model's script. */
let outage: DeclarativeListing;
let renter: Renter;
let outageRenter: Renter;
beforeAll(async () => {
  servers = await startModelServers(stack());
  await stack().addApi(servers.env);
  listing = await listDeclarativeAgent(stack(), servers, {
    name: "fragile-brief",
    provider: "anthropic",
    price: PRICE,
  });
  outage = await listDeclarativeAgent(stack(), servers, {
    name: "outage-brief",
    provider: "openai",
    price: PRICE,
  });
  renter = await perTaskRenter(stack(), listing, 10n * PRICE);
  outageRenter = await perTaskRenter(stack(), outage, 2n * PRICE);
});
afterAll(() => servers?.stop());

const run = (extra: object = {}) =>
  renter.api.post("/v1/execute", { agent_id: listing.agentId, task: "Brief me", ...extra });

describe("a vendor's faults", () => {
  it("a rate limit, then an answer: the run completes and is charged", async () => {
    servers.vendor.script(listing.model, [
      { kind: "error", status: 429, retryAfterSeconds: 1 },
      { kind: "text", text: "Answered after the limit." },
    ]);
    const response = await run();
    expect(response.body).toMatchObject({
      status: "completed",
      output: "Answered after the limit.",
      cost_wei: Number(PRICE),
    });
  });

  it("an outage that outlasts the run fails it, uncharged, naming only the status", async () => {
    // Each failure asks for a second's wait: one retry fits in the run's 2 s, a second would not,
    // so the runtime gives up well before the deadline, however slow the machine's calls are.
    servers.vendor.script(
      outage.model,
      Array.from({ length: 100 }, () => ({
        kind: "error" as const,
        status: 500,
        retryAfterSeconds: 1,
      })),
    );
    const response = await outageRenter.api.post("/v1/execute", {
      agent_id: outage.agentId,
      task: "Brief me",
      timeout_seconds: 2,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "failed", output: "", cost_wei: 0 });
    const fetched = await outageRenter.api.get(`/v1/runs/${response.body.run_id}`);
    expect(fetched.body.failure).toBe("the model vendor answered HTTP 500");
    const retried = servers.vendor.requests.filter((request) => request.model === outage.model);
    expect(retried.length).toBeGreaterThan(1);
  });

  it("a stream cut mid-way ends with done failed, the partial output, and its charge", async () => {
    servers.vendor.script(listing.model, [
      { kind: "text", text: ["Chips ", "rose ", "two ", "percent"], cutAfterChunks: 2 },
    ]);
    const response = await fetch(`${stack().api.url}/v1/execute/stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ agent_id: listing.agentId, task: "Brief me" }),
    });
    expect(response.status).toBe(200);
    const events = eventsOf(await sseReader(response).rest());
    const deltas = events
      .filter((event) => event.event === "output")
      .map((event) => (event.data as { delta: string }).delta);
    expect(deltas.join("")).toBe("Chips rose ");
    expect(events.at(-1)).toEqual({
      event: "done",
      data: {
        run_id: expect.stringMatching(/^run_/),
        status: "failed",
        output: "Chips rose ",
        cost_wei: Number(PRICE),
        duration_ms: expect.any(Number),
      },
    });
  });

  it("a 2 s timeout against a 10 s answer fails the run at about 2 s", async () => {
    servers.vendor.script(listing.model, [{ kind: "text", text: "Too late.", delayMs: 10_000 }]);
    const response = await run({ timeout_seconds: 2 });
    expect(response.body).toMatchObject({ status: "failed", cost_wei: 0 });
    expect(response.body.duration_ms).toBeGreaterThanOrEqual(2_000);
    expect(response.body.duration_ms).toBeLessThan(5_000);
  });

  it("an agent registered without its vendor's credentials fails its runs at once, uncharged", async () => {
    const keyless = await listDeclarativeAgent(stack(), servers, {
      name: "keyless-brief",
      provider: "openai",
      price: PRICE,
      vendorKey: null,
    });
    const keylessRenter = await perTaskRenter(stack(), keyless, PRICE);
    const response = await keylessRenter.api.post("/v1/execute", {
      agent_id: keyless.agentId,
      task: "Brief me",
    });
    expect(response.body).toMatchObject({ status: "failed", output: "", cost_wei: 0 });
    const fetched = await keylessRenter.api.get(`/v1/runs/${response.body.run_id}`);
    expect(fetched.body.failure).toBe(NO_VENDOR_CREDENTIALS);
    expect(servers.vendor.requests.some((request) => request.model === keyless.model)).toBe(false);
    await expectBooksBalance(stack(), keyless, [keylessRenter]);
  });

  it("charged only the runs that delivered output: the completed one and the cut stream", async () => {
    const rows = await expectBooksBalance(stack(), listing, [renter]);
    expect([...rows.values()].filter((row) => row.charge === "debited")).toHaveLength(2);
    await expectBooksBalance(stack(), outage, [outageRenter]);
  });
});
