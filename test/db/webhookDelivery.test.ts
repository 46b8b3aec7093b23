// Webhook delivery's bounds, with the real delivery loops over Postgres and a local HTTPS endpoint
// that verifies every delivery: one endpoint never has more than 4 attempts in flight, however many
// processes deliver and however many deliveries are due, while the wallet's other endpoints are
// not held back; and a delivery is given up once its next try would fall past 24 hours after its
// event, not retried.
import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { newWebhookSecret } from "../../lib/agents/webhookSecret.ts";
import { webhookDeliveries, webhookEndpoints } from "../../lib/db/appSchema.ts";
import { connectProjections } from "../../lib/db/projections.ts";
import { newWebhookEndpointId } from "../../lib/ids/randomIds.ts";
import { createLogger } from "../../lib/log.ts";
import { sealEndpointSecret } from "../../lib/webhooks/endpointSecret.ts";
import { enqueueWebhook } from "../../lib/webhooks/enqueueWebhook.ts";
import type { GuardedPostOptions } from "../../workers/execution/outbound/guardedPost.ts";
import { startWebhookDelivery } from "../../workers/webhooks/deliverWebhooks.ts";
import { until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";
import {
  type Answer,
  answers,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../support/webhookReceiver.ts";

const stack = useStack({ chain: false, postgres: true });
const SEALING_KEY = randomBytes(32);
const RETRY_BASE_MS = 200;
let receiver: WebhookReceiver;
let outbound: GuardedPostOptions;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const certificates = await ensureDevCertificates(stack().dir);
  receiver = await startWebhookReceiver(certificates);
  // What the workers allow on chain 31337 (loadOutboundPolicy): loopback, and the dev CA.
  outbound = { policy: { allowPrivateAddresses: true, extraCa: certificates.caCertificate } };
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});
afterAll(() => receiver?.close());

type DeliveryLoop = ReturnType<typeof startWebhookDelivery>;

/** A delivery loop over a pool of its own, as one worker process runs it. */
function startLoop(): DeliveryLoop {
  const database = connectProjections(stack().postgres.databaseUrl);
  const loop = startWebhookDelivery({
    db: database.db,
    sealingKey: SEALING_KEY,
    outbound,
    log: createLogger("webhooks", () => {}),
    retryBaseMs: RETRY_BASE_MS,
    // Far longer than the test holds a request open.
    attemptTimeoutMs: 30_000,
    pollMs: 50,
  });
  stops.push(async () => {
    await loop.stop();
    await database.close();
  });
  return loop;
}

/** An endpoint of the receiver for `listing.purchased`, stored as `POST /v1/webhooks` stores it. */
async function addEndpoint(wallet: string, answer: Answer) {
  const endpoint = receiver.endpoint(answer);
  const id = newWebhookEndpointId();
  const secret = newWebhookSecret();
  const sealed = sealEndpointSecret(SEALING_KEY, id, secret);
  await stack()
    .db.insert(webhookEndpoints)
    .values({
      id,
      wallet,
      url: endpoint.url,
      events: ["listing.purchased"],
      secret: sealed.sealed,
      sealingKeyId: sealed.sealingKeyId,
    });
  endpoint.accept(secret);
  return { ...endpoint, id };
}

const enqueue = (wallet: string, eventKey: string) =>
  enqueueWebhook(stack().db, { wallet, type: "listing.purchased", eventKey, data: { eventKey } });

const deliveriesOf = (endpointId: string) =>
  stack()
    .db.select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(webhookDeliveries.eventKey);

/** Waits until `loop` has begun a claim round after `since` and ended it. */
async function claimRoundAfter(loop: DeliveryLoop, since: number) {
  const ended = await until("a claim round", () => loop.passedAt() > since && loop.passedAt());
  await until("the claim round after it", () => loop.passedAt() > ended);
}

it("at most 4 attempts in flight at one endpoint, across processes", async () => {
  const wallet = "0x00000000000000000000000000000000000000b1";
  let open = 0;
  let mostOpen = 0;
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const holding: Answer = async () => {
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    await released;
    open -= 1;
  };
  const held = await addEndpoint(wallet, holding);
  const free = await addEndpoint(wallet, answers.ok);
  for (let n = 1; n <= 12; n++) expect(await enqueue(wallet, `purchase:${n}`)).toBe(2);

  const loops = [startLoop(), startLoop()];
  await until("4 requests held", () => open === 4);
  await until(
    "the other endpoint's 12 deliveries",
    () => receiver.deliveriesTo(free.path).length === 12,
  );
  // Both loops looked again with 8 still due at the held endpoint: neither took another.
  const full = Date.now();
  await Promise.all(loops.map((loop) => claimRoundAfter(loop, full)));
  expect(open).toBe(4);
  expect(receiver.deliveriesTo(held.path)).toHaveLength(4);

  release();
  await until("every delivery delivered", async () =>
    (await deliveriesOf(held.id)).every(({ status }) => status === "delivered"),
  );
  const rows = await deliveriesOf(held.id);
  expect(rows.map(({ attempts }) => attempts)).toEqual(Array(12).fill(1));
  const arrived = receiver.deliveriesTo(held.path);
  expect(arrived.map(({ id }) => id).sort()).toEqual(rows.map(({ id }) => id).sort());
  expect(arrived.every(({ verified, attempt }) => verified && attempt === 1)).toBe(true);
  expect(mostOpen).toBe(4);
});

it("gives a delivery up once its next try would fall past 24 hours after its event", async () => {
  const wallet = "0x00000000000000000000000000000000000000b2";
  const failing = await addEndpoint(wallet, answers.failing(Number.POSITIVE_INFINITY));
  await enqueue(wallet, "purchase:old");
  await enqueue(wallet, "purchase:new");
  // Just inside its 24 hours: its first try falls within them, a second after 200 ms would not.
  await stack().db.execute(sql`
    update app.webhook_deliveries set created_at = now() - interval '24 hours' + interval '100 ms'
    where endpoint_id = ${failing.id} and event_key = 'purchase:old'`);
  const [recent, old] = await deliveriesOf(failing.id); // by event key: "new" before "old"
  if (!old || !recent) throw new Error("the deliveries were not enqueued");

  startLoop();
  // The recent one tried a third time: the old one would have been tried again long since.
  await receiver.deliveryTo(
    failing.path,
    ({ id, attempt }) => id === recent.id && attempt === 3,
    20_000,
  );
  expect(receiver.deliveriesTo(failing.path).filter(({ id }) => id === old.id)).toHaveLength(1);
  const [, oldAfter] = await deliveriesOf(failing.id);
  expect(oldAfter).toMatchObject({ status: "failed", attempts: 1, lastResponseStatus: 500 });

  // Between its tries the recent one waits, pending, for a later one.
  await until("the recent delivery waiting for its next try", async () => {
    const [row] = await stack().db.execute<{ waits: boolean }>(sql`
      select status = 'pending' and last_response_status = 500 and next_attempt_at > now() as waits
      from app.webhook_deliveries where id = ${recent.id}`);
    return row?.waits;
  });
});
