// @service/sdk's `webhooks` against the embedded composition `npm start` runs (the API, an in-process
// bus and the workers in one process): an endpoint created with the client receives a run's
// `run.completed`, signed as Standard Webhooks sign it, and the client reads it, lists and pages its
// delivery log, and deletes it.
import { parseEther } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { ServiceClient, ServiceNotFoundError } from "../../sdk/src/index.ts";
import { type BehavingAgent, behaving, startBehavingAgent } from "../support/behavingAgent.ts";
import {
  listPerTaskAgent,
  type PerTaskListing,
  perTaskRenter,
} from "../support/connectedListing.ts";
import { useStack } from "../support/useStack.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.ts";

const PRICE = parseEther("0.001");
const stack = useStack({ api: 0, ponder: true, rateLimitPerMinute: 10_000 });
let agent: BehavingAgent;
let receiver: WebhookReceiver;
let listing: PerTaskListing;

beforeAll(async () => {
  const certificates = await ensureDevCertificates(stack().dir);
  agent = await startBehavingAgent(certificates);
  receiver = await startWebhookReceiver(certificates);
  // No NATS: embedded/main.ts, whose workers deliver the webhooks.
  await stack().addApi();
  listing = await listPerTaskAgent(stack(), agent, { name: "sdk-hooked", price: PRICE });
}, 240_000);
afterAll(async () => {
  await agent?.close();
  await receiver?.close();
});

it("creates an endpoint that receives a run's end, then reads, pages and deletes it", async () => {
  const renter = await perTaskRenter(stack(), listing, 5n * PRICE);
  const client = new ServiceClient({ baseUrl: stack().api.url, account: renter.account });
  const endpoint = receiver.endpoint();
  const created = await client.webhooks.create(endpoint.url, ["run.failed", "run.completed"]);
  endpoint.accept(created.secret);
  expect(created).toMatchObject({ url: endpoint.url, events: ["run.completed", "run.failed"] });
  const { secret, ...shown } = created;
  expect(await client.webhooks.get(created.id)).toEqual(shown);
  expect(await client.webhooks.list()).toEqual([shown]);

  const runs = [];
  for (let run = 0; run < 3; run++) {
    runs.push(await client.execute({ agent_id: listing.agentId, task: behaving() }));
  }
  for (const run of runs) {
    const delivery = await receiver.deliveryTo(
      endpoint.path,
      ({ payload }) => payload?.data?.run_id === run.run_id,
    );
    expect(delivery).toMatchObject({ verified: true, payload: { type: "run.completed" } });
  }

  const firstPage = await client.webhooks.deliveries(created.id, { limit: 2 });
  expect(firstPage.deliveries).toHaveLength(2);
  expect(firstPage.next_cursor).toEqual(expect.any(String));
  const logged = [];
  for await (const delivery of client.webhooks.deliveries(created.id, { limit: 2 })) {
    logged.push(delivery);
  }
  expect(logged.map(({ id }) => id).sort()).toEqual(
    receiver
      .deliveriesTo(endpoint.path)
      .map(({ id }) => id)
      .sort(),
  );
  expect(logged.every(({ status, attempts }) => status === "delivered" && attempts === 1)).toBe(
    true,
  );

  expect(await client.webhooks.delete(created.id)).toEqual(shown);
  await expect(client.webhooks.get(created.id)).rejects.toBeInstanceOf(ServiceNotFoundError);
  expect(await client.webhooks.list()).toEqual([]);
  expect(JSON.stringify(logged)).not.toContain(secret);
});
