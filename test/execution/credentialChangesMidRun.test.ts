// A per-task credential changed on-chain while its runs are at the agent, on the real stack (API
// process, worker process over NATS JetStream, settlement on anvil). A top-up racing runs in flight:
// while two runs hold the whole balance a third is refused; a top-up of one price mined meanwhile
// pays for exactly one more run, never two; every run admitted is debited once. A revocation: the
// run going on is answered, the contract refuses its debit so it costs nothing, the balance stays
// whole, and the next request is refused.
import { parseEther } from "viem";
import { expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { balanceOf } from "../settlement/settlementFixtures.ts";
import { behaving } from "../support/behavingAgent.ts";
import { expectOnChainError } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { readRun } from "../support/runRows.ts";

const PRICE = parseEther("0.001");
const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "changing-credential-agent",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});

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

it("a credential revoked while its run is at the agent: the run is answered, charged nothing, and the next is refused", async () => {
  const renter = await addRenter(2n * PRICE);
  const body = { agent_id: listing().agentId, task: behaving({ hold: "revoked" }) };
  const going = renter.api.post("/v1/execute", body);
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
  expectOnChainError(
    await renter.api.post("/v1/execute", { agent_id: listing().agentId, task: behaving() }),
    403,
    "credential_revoked",
    "CredentialRevoked",
  );
  expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(2n * PRICE);
});
