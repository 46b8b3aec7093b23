// Spend limits the service enforces, on the real stack (API, worker over NATS JetStream, settlement on
// anvil) with a per-task agent: a request's `max_cost_wei` refuses a run priced above it; an API
// key's daily spend cap lets exactly as many concurrent runs, across listings, through as it pays
// for, every other refused before it runs, and never more charged on-chain; a key limited to some
// listings runs no other. A key's limits are named by the SIWE message that confirms it, and listed with it.
import { parseEther } from "viem";
import { parseSiweMessage } from "viem/siwe";
import { beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../devStack/client/createApiKey.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { balanceOf } from "../settlement/settlementFixtures.ts";
import { behaving } from "../support/behavingAgent.ts";
import { listPerTaskAgent, type PerTaskListing, type Renter } from "../support/connectedListing.ts";
import { expectError, http } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { until } from "../support/registration.ts";

const PRICE = parseEther("0.001");
const { stack, agent, listing, addRenter } = usePerTaskAgentOnStack({
  name: "spend-limited-agent",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});
/** A second per-task listing of the same price, for limits across listings. */
let second: PerTaskListing;
beforeAll(async () => {
  second = await listPerTaskAgent(stack(), agent(), { name: "spend-limited-second", price: PRICE });
});

const run = (on: PerTaskListing = listing()) => ({ agent_id: on.agentId, task: behaving() });

/** A renter holding `deposit` on each listing. */
async function renterOfBoth(deposit: bigint) {
  const renter = await addRenter(deposit);
  const market = stack().marketplace;
  await market.mined(
    market.as(renter.account).write.purchasePerQuery([second.listingId, PRICE], { value: deposit }),
  );
  return renter;
}

/** What the renter's balances on both listings hold, once both read `expected` in all. */
async function untilBalancesSum(renter: Renter, expected: bigint) {
  await until(`balances of ${expected} wei in all`, async () => {
    const [first, other] = await Promise.all(
      [listing(), second].map(({ listingId }) =>
        balanceOf(stack(), listingId, renter.account.address),
      ),
    );
    return (first ?? 0n) + (other ?? 0n) === expected;
  });
}

it("refuses a run priced above the request's max_cost_wei, charging nothing, and runs one within it", async () => {
  const renter = await addRenter(2n * PRICE);
  const above = await renter.api.post("/v1/execute", { ...run(), max_cost_wei: Number(PRICE) - 1 });
  expectError(above, 403, "max_cost_exceeded");
  expect(above.body.error.message).toContain(PRICE.toString());
  expectError(
    await renter.api.post("/v1/execute", { ...run(), max_cost_wei: "0.5" }),
    400,
    "invalid_request",
  );

  const within = await renter.api.post("/v1/execute", { ...run(), max_cost_wei: PRICE.toString() });
  expect(within.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
  await until(
    "the one run debited",
    async () => (await balanceOf(stack(), listing().listingId, renter.account.address)) === PRICE,
  );
});

it("lets a key with a daily cap of three prices run exactly three of ten concurrent runs on two listings, refusing the rest before they run", async () => {
  const renter = await renterOfBoth(5n * PRICE);
  const capped = await createApiKey(stack().api.url, renter.account, "capped", ["run", "read"], {
    daily_spend_cap_wei: (3n * PRICE).toString(),
  });
  const withKey = http(() => stack().api.url, { bearer: capped.key });
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, n) =>
      withKey.post("/v1/execute", run(n % 2 === 0 ? listing() : second)),
    ),
  );
  const completed = answers.filter(({ status }) => status === 200);
  expect(completed).toHaveLength(3);
  for (const answer of completed) {
    expect(answer.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
  }
  const refused = answers.filter(({ status }) => status !== 200);
  for (const answer of refused) expectError(answer, 403, "spend_cap_exceeded");
  expect(Number(refused[0]?.headers.get("retry-after"))).toBeGreaterThan(0);
  await untilBalancesSum(renter, 7n * PRICE);

  // The cap is the key's: the wallet's own token still runs, the key does not.
  expect((await renter.api.post("/v1/execute", run())).body).toMatchObject({ status: "completed" });
  expectError(await withKey.post("/v1/execute", run(second)), 403, "spend_cap_exceeded");
  await untilBalancesSum(renter, 6n * PRICE);
});

it("lets a key limited to some listings run those only", async () => {
  const renter = await renterOfBoth(PRICE);
  const limited = await createApiKey(stack().api.url, renter.account, "limited", ["run"], {
    allowed_listings: [toApiListingId(second.listingId)],
  });
  const withKey = http(() => stack().api.url, { bearer: limited.key });
  expectError(await withKey.post("/v1/execute", run()), 403, "listing_not_allowed");
  expect((await withKey.post("/v1/execute", run(second))).body).toMatchObject({
    status: "completed",
    cost_wei: Number(PRICE),
  });
  await untilBalancesSum(renter, PRICE);
});

it("names a key's limits in the message that confirms it, lists them with it, and creates nothing for a message naming others", async () => {
  const renter = await addRenter(PRICE);
  const limits = {
    daily_spend_cap_wei: PRICE.toString(),
    allowed_listings: [toApiListingId(listing().listingId)],
  };
  await createApiKey(stack().api.url, renter.account, "listed", ["run", "read"], limits);
  const keys = await renter.api.get("/v1/api-keys");
  expect(keys.body.api_keys).toContainEqual(
    expect.objectContaining({ label: "listed", ...limits }),
  );

  // A message confirming a key without a cap, sent with a body asking for one.
  const query = new URLSearchParams({ format: "siwe", label: "uncapped", scopes: "run" });
  const challenge = (await renter.api.get(`/v1/api-keys/challenge?${query}`)).body.challenge;
  expect(parseSiweMessage(challenge).statement).not.toContain("wei");
  const signature = await renter.account.signMessage({ message: challenge });
  const body = { label: "uncapped", scopes: ["run"], challenge, signature };
  expectError(
    await renter.api.post("/v1/api-keys", { ...body, ...limits }),
    401,
    "invalid_signature",
  );
  const after = await renter.api.get("/v1/api-keys");
  expect(after.body.api_keys.map(({ label }: { label: string }) => label)).not.toContain(
    "uncapped",
  );
  // The statement's own words, as a wallet shows them before signing.
  const capped = new URLSearchParams(query);
  capped.set("daily_spend_cap_wei", limits.daily_spend_cap_wei);
  capped.set("allowed_listings", limits.allowed_listings.join(","));
  const named = (await renter.api.get(`/v1/api-keys/challenge?${capped}`)).body.challenge;
  expect(parseSiweMessage(named).statement).toBe(
    `Create an API key labelled "uncapped" with the scopes: run. It may spend at most ${PRICE} wei a UTC day. It may run only ${limits.allowed_listings[0]}.`,
  );
});
