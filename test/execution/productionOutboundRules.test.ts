// Creators' webhooks under the outbound rules of every chain but the local one, on the real stack (API
// process, worker process over NATS JetStream, settlement on anvil), with the local chain's allowance
// of private addresses turned off: a webhook at a loopback address, named by its address or by a
// name that resolves to it, is refused before anything is sent. The run fails, the agent is never
// called, and the renter is charged nothing, on the synchronous answer and on the stream.
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { beforeAll, expect, it } from "vitest";
import { runs } from "../../lib/db/appSchema.ts";
import { behaving } from "../support/behavingAgent.ts";
import {
  listPerTaskAgent,
  type PerTaskListing,
  perTaskRenter,
  type Renter,
} from "../support/connectedListing.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { eventsOf, sseReader } from "../support/sseEvents.ts";

const PRICE = parseEther("0.001");
const NOT_PUBLIC = "the endpoint's address is not a public internet address";

const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "loopback-agent",
  price: PRICE,
  env: { ALLOW_PRIVATE_ENDPOINTS: "false" },
  startProcesses: () => stack().addWorker(),
});

/** The same agent, its webhook named `localhost` instead of its address. */
let byName: PerTaskListing;
beforeAll(async () => {
  byName = await listPerTaskAgent(stack(), agent(), {
    name: "localhost-agent",
    price: PRICE,
    host: "localhost",
  });
});

async function rowOf(runId: string) {
  const [row] = await stack().db.select().from(runs).where(eq(runs.id, runId));
  return { status: row?.status, failure: row?.failure, charge: row?.charge };
}

async function streamed(renter: Renter, body: object) {
  const response = await fetch(`${stack().api.url}/v1/execute/stream`, {
    method: "POST",
    headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const events = eventsOf(await sseReader(response).rest());
  expect(events.map((event) => event.event)).toEqual(["done"]);
  return events[0]?.data as { run_id: string; status: string; cost_wei: number };
}

it("refuses a webhook at a loopback address: the run fails uncharged and the agent is never called", async () => {
  const renter = await addRenter(2n * PRICE);
  const body = { agent_id: listing().agentId, task: behaving() };

  const answer = await renter.api.post("/v1/execute", body);
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ status: "failed", cost_wei: 0 });
  const done = await streamed(renter, body);
  expect(done).toMatchObject({ status: "failed", cost_wei: 0 });

  for (const runId of [answer.body.run_id, done.run_id]) {
    expect(await rowOf(runId)).toEqual({
      status: "failed",
      failure: NOT_PUBLIC,
      charge: "released",
    });
    expect(agent().callsOf(runId)).toBe(0);
  }
  await expectBooksBalance();
});

it("refuses a webhook whose name resolves to a loopback address", async () => {
  const renter = await perTaskRenter(stack(), byName, PRICE);
  const answer = await renter.api.post("/v1/execute", {
    agent_id: byName.agentId,
    task: behaving(),
  });
  expect(answer.body).toMatchObject({ status: "failed", cost_wei: 0 });
  expect(await rowOf(answer.body.run_id)).toEqual({
    status: "failed",
    failure: NOT_PUBLIC,
    charge: "released",
  });
  expect(agent().callsOf(answer.body.run_id)).toBe(0);
});
