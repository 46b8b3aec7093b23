// A per-task credential changed on-chain while its runs are at the agent, on the real stack (API
// process, worker process over NATS JetStream, settlement on anvil). A top-up racing runs in flight:
// while two runs hold the whole balance a third is refused; a top-up of one price mined meanwhile
// pays for exactly one more run, never two; every run admitted is debited once. A revocation: the
// run going on is answered, the contract refuses its debit so it costs nothing, the balance stays
// whole, a retry under its Idempotency-Key is answered the same run, and the next request is
// refused. The protocol paused: the debit waits for the pause to
// end, then is charged once. The listing paused by its creator: the run is answered and charged
// once (a debit settles on a paused listing), and the next request is refused. The operator rotated:
// the old key's debit is refused as a whole and changes nothing, the run waits, and the settlement
// started with the new operator's key charges it once. The renter's API key revoked: the run it
// started is answered and charged once, and the key is refused from then on. The listing closed:
// the run is answered and charged nothing.
import { type Hex, isAddressEqual, parseEther } from "viem";
import { expect, it } from "vitest";
import type { Worker } from "../../devStack/startWorker.ts";
import { devAccount, devPrivateKey, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { balanceOf } from "../settlement/settlementFixtures.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import {
  createApiKey,
  expectError,
  expectOnChainError,
  type JsonResponse,
  type RequestOptions,
} from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { perTaskLedger } from "../support/perTaskLedger.ts";
import { until } from "../support/registration.ts";
import { nextRunOf, readRun } from "../support/runRows.ts";

const PRICE = parseEther("0.001");
/** The dev account the authority rotates the operator to: no other role in this stack. */
const NEXT_OPERATOR = 3;
/** Everything the stack's processes print. */
const output: string[] = [];
/** The worker process, which settles with the operator's key it started with. */
let worker: Worker | undefined;
const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "changing-credential-agent",
  price: PRICE,
  stackOptions: { onOutput: (chunk) => output.push(chunk) },
  startProcesses: async () => {
    worker = await stack().addWorker();
  },
});

/**
 * Sends a run of `renter` (as `options` say: its wallet token unless told) and resolves once it
 * holds at the agent at `hold`, with its answer to come.
 */
async function heldRun(renter: Renter, hold: string, options?: RequestOptions) {
  const answer = renter.api.post(
    "/v1/execute",
    { agent_id: listing().agentId, task: behaving({ hold }) },
    options,
  );
  await agent().held(hold);
  return { answer };
}

/**
 * `answer` is its run completed and charged the price once: its row debited, one debit on-chain,
 * and `renter`'s balance left at `balanceLeft`.
 */
async function expectAnsweredAndChargedOnce(
  renter: Renter,
  answer: JsonResponse,
  balanceLeft: bigint,
) {
  expect(answer.body).toMatchObject({
    status: "completed",
    output: { summary: "done" },
    cost_wei: Number(PRICE),
  });
  const run = await readRun(stack(), answer.body.run_id);
  expect(run).toMatchObject({ charge: "debited", costWei: PRICE.toString() });
  expect(await perTaskLedger(stack(), listing().listingId, renter.account.address)).toEqual({
    balance: balanceLeft,
    debits: new Map([[BigInt(run.onChainRunId), PRICE]]),
    debitedWei: PRICE,
    costWei: PRICE,
    runsByCharge: { debited: 1 },
  });
}

it("a top-up mined while runs hold the whole balance pays for exactly one more run", async () => {
  const renter = await addRenter(2n * PRICE);
  const run = (hold?: string) =>
    renter.api.post("/v1/execute", {
      agent_id: listing().agentId,
      task: behaving(hold === undefined ? {} : { hold }),
    });
  const refused = async () =>
    expectOnChainError(await run(), 403, "insufficient_balance", "InsufficientBalance");

  const held = [run("first"), run("second")];
  await Promise.all([agent().held("first"), agent().held("second")]);
  await refused();

  const market = stack().marketplace;
  await market.mined(
    market.as(renter.account).write.topUpBalance([listing().listingId, PRICE], { value: PRICE }),
  );
  renter.deposit += PRICE; // what the books count as paid in
  held.push(run("third"));
  await agent().held("third");
  await refused();

  for (const hold of ["first", "second", "third"]) agent().release(hold);
  for (const answer of await Promise.all(held)) {
    expect(answer.body).toMatchObject({ status: "completed", cost_wei: Number(PRICE) });
  }
  const books = await expectBooksBalance();
  expect([...books.values()].map((row) => row.charge)).toEqual(["debited", "debited", "debited"]);
  expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(0n);
});

it("a credential revoked while its run is at the agent: the run is answered, charged nothing, a retry under its key gets it, and the next is refused", async () => {
  const renter = await addRenter(2n * PRICE);
  const body = { agent_id: listing().agentId, task: behaving({ hold: "revoked" }) };
  const keyed = { headers: { "idempotency-key": "revoked-mid-run" } };
  const going = renter.api.post("/v1/execute", body, keyed);
  await agent().held("revoked");
  const market = stack().marketplace;
  await market.mined(
    market
      .as(devAccount(2))
      .write.revokePerQueryAccess([listing().listingId, renter.account.address]),
  );
  agent().release("revoked");

  const answer = await going;
  expect(answer.body).toMatchObject({
    status: "completed",
    output: { summary: "done" },
    cost_wei: 0,
  });
  expect((await readRun(stack(), answer.body.run_id)).charge).toBe("refused");
  // A retry is answered its run, whatever the chain says now.
  expect((await renter.api.post("/v1/execute", body, keyed)).body).toEqual(answer.body);
  expectOnChainError(
    await renter.api.post("/v1/execute", { agent_id: listing().agentId, task: behaving() }),
    403,
    "credential_revoked",
    "CredentialRevoked",
  );
  expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(2n * PRICE);
});

it("the protocol paused while a run is at the agent: its debit waits for the pause to end, then it is charged once", async () => {
  const renter = await addRenter(PRICE);
  const { answer: going } = await heldRun(renter, "paused");
  const market = stack().marketplace;
  const authority = devAccount(LOCAL_ROLES.authority);
  const heardBefore = output.length;
  await market.mined(market.as(authority).write.setPaused([true]));
  agent().release("paused");

  await until(
    "settlement to be refused by the paused contract twice",
    () => output.slice(heardBefore).join("").split("ProtocolPaused").length > 2,
  );
  const runId = (await nextRunOf(stack(), renter.account.address, [])).id;
  expect(await readRun(stack(), runId)).toMatchObject({ charge: "debit_pending", costWei: "0" });
  expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(PRICE);

  await market.mined(market.as(authority).write.setPaused([false]));
  expect((await going).body).toMatchObject({
    run_id: runId,
    status: "completed",
    cost_wei: Number(PRICE),
  });
  expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(0n);
});

it("the listing paused by its creator while a run is at the agent: the run is answered and charged once, and the next is refused", async () => {
  const renter = await addRenter(2n * PRICE);
  const { answer: going } = await heldRun(renter, "listing-paused");
  const market = stack().marketplace;
  const creator = market.as(devAccount(2));
  await market.mined(creator.write.setListingActive([listing().listingId, false]));
  agent().release("listing-paused");

  const answer = await going;
  expectOnChainError(
    await renter.api.post("/v1/execute", { agent_id: listing().agentId, task: behaving() }),
    403,
    "listing_paused",
    "ListingNotActive",
  );
  await market.mined(creator.write.setListingActive([listing().listingId, true]));
  await expectAnsweredAndChargedOnce(renter, answer, PRICE);
});

it("the operator rotated while a run is at the agent: the old key's debit is refused and waits, and the new operator's settlement charges it once", async () => {
  const renter = await addRenter(PRICE);
  const { answer: going } = await heldRun(renter, "rotated");
  const market = stack().marketplace;
  const authority = market.as(devAccount(LOCAL_ROLES.authority));
  const nextOperator = devAccount(NEXT_OPERATOR).address;
  const heardBefore = output.length;
  await market.mined(authority.write.setOperator([nextOperator]));
  agent().release("rotated");

  await until(
    "settlement to be refused as no longer the operator twice",
    () => output.slice(heardBefore).join("").split("the contract refused: Unauthorized").length > 2,
  );
  const runId = (await nextRunOf(stack(), renter.account.address, [])).id;
  expect(await readRun(stack(), runId)).toMatchObject({
    charge: "debit_pending",
    costWei: "0",
    debitTx: null,
  });
  expect(await perTaskLedger(stack(), listing().listingId, renter.account.address)).toEqual({
    balance: PRICE,
    debits: new Map(),
    debitedWei: 0n,
    costWei: 0n,
    runsByCharge: { debit_pending: 1 },
  });

  // The rotation's other half: the workers started again with the new operator's key.
  await worker?.stop();
  worker = await stack().addWorker({ OPERATOR_PRIVATE_KEY: devPrivateKey(NEXT_OPERATOR) });
  expect((await going).body).toMatchObject({
    run_id: runId,
    status: "completed",
    cost_wei: Number(PRICE),
  });
  const run = await readRun(stack(), runId);
  expect(run).toMatchObject({ charge: "debited", costWei: PRICE.toString() });
  const debit = await market.publicClient.getTransaction({ hash: run.debitTx as Hex });
  expect(isAddressEqual(debit.from, nextOperator), `debit sent by ${debit.from}`).toBe(true);
  expect(await perTaskLedger(stack(), listing().listingId, renter.account.address)).toEqual({
    balance: 0n,
    debits: new Map([[BigInt(run.onChainRunId), PRICE]]),
    debitedWei: PRICE,
    costWei: PRICE,
    runsByCharge: { debited: 1 },
  });
});

it("the renter's API key revoked while its run is at the agent: the run is answered and charged once, and the key is refused after", async () => {
  const renter = await addRenter(2n * PRICE);
  const { id, key } = await createApiKey(stack().api.url, renter.account, "revoked mid-run");
  const { answer: going } = await heldRun(renter, "key-revoked", { bearer: key });
  expect((await renter.api.del(`/v1/api-keys/${id}`)).status).toBe(200);
  expectError(
    await renter.api.post(
      "/v1/execute",
      { agent_id: listing().agentId, task: behaving() },
      { bearer: key },
    ),
    401,
    "invalid_api_key",
  );
  agent().release("key-revoked");

  const answer = await going;
  await expectAnsweredAndChargedOnce(renter, answer, PRICE);
});

it("the listing closed while a run is at the agent: the run is answered and charged nothing", async () => {
  const renter = await addRenter(PRICE);
  const { answer: going } = await heldRun(renter, "closed");
  const market = stack().marketplace;
  const creator = market.as(devAccount(2));
  // A listing closes with its escrow withdrawn.
  const [, , escrow] = await creator.read.listings([listing().listingId]);
  if (escrow > 0n) {
    await market.mined(creator.write.withdrawEarnings([listing().listingId, escrow]));
  }
  await market.mined(creator.write.closeListing([listing().listingId]));
  agent().release("closed");

  const answer = await going;
  expect(answer.body).toMatchObject({ status: "completed", cost_wei: 0 });
  expect((await readRun(stack(), answer.body.run_id)).charge).toBe("refused");
  expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(PRICE);
});
