// A per-task run's price is fixed when it is admitted, on the real stack (API process, worker process
// over NATS JetStream, settlement on anvil): the creator changes the listing's price while the agent
// holds the run, and the run's debit, the renter's balance and the answer's cost_wei all show the
// admission price, or the new one if it is lower.
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { projections } from "../../lib/db/projections.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { balanceOf, runEvents, runRow } from "./settlementFixtures.ts";

const PRICE = parseEther("0.001");
const DEPOSIT = 3n * PRICE;
const { stack, agent, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "price-at-admission",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});

/**
 * The creator's `updateListing` to `price`, mined and indexed, as a renter would see it in the
 * catalogue; the metadata stays, so the agent's version does. An admission reads the chain at the
 * newest head the API was announced (docs/decisions.md, "How does the API learn the chain's latest
 * block?"), which on a loaded machine may come a moment after the mined receipt.
 */
async function setPrice(price: bigint) {
  const { listing: listed } = projections;
  const [row] = await stack()
    .db.select({ metadataUri: listed.metadataUri })
    .from(listed)
    .where(eq(listed.id, listing().listingId));
  if (!row) throw new Error("the listing is not indexed");
  const market = stack().marketplace;
  const receipt = await market.mined(
    market.as(devAccount(2)).write.updateListing([listing().listingId, price, row.metadataUri]),
  );
  await stack().ponder.waitForBlock(receipt.blockNumber);
}

/**
 * Runs the agent as `renter`, holding the run at the agent while `meanwhile` runs (the run admitted,
 * its price reserved), then lets it answer; returns the API's answer.
 */
async function runHeldWhile(renter: Renter, hold: string, meanwhile: () => Promise<unknown>) {
  const answer = renter.api.post("/v1/execute", {
    agent_id: listing().agentId,
    task: behaving({ hold }),
  });
  await agent().held(hold);
  await meanwhile();
  agent().release(hold);
  return answer;
}

/** What the chain debited for the run: its `QueryConsumed` prices, and the renter's balance left. */
async function debitOf(runId: string, renter: Renter) {
  const { onChainRunId } = await runRow(stack(), runId);
  const consumed = await runEvents(stack(), "QueryConsumed", [BigInt(onChainRunId)]);
  return {
    prices: consumed.map((log) => log.args.price),
    balance: await balanceOf(stack(), listing().listingId, renter.account.address),
  };
}

it("charges the price a run was admitted at when the creator raises the price mid-run", async () => {
  await setPrice(PRICE);
  const renter = await addRenter(DEPOSIT);
  // A cut below the price the renter agreed to: the run is admitted at it.
  const admitted = PRICE / 2n;
  await setPrice(admitted);

  const { status, body } = await runHeldWhile(renter, "raised", () => setPrice(2n * PRICE));

  expect(status).toBe(200);
  expect(body).toMatchObject({ status: "completed", cost_wei: Number(admitted) });
  expect(await debitOf(body.run_id, renter)).toEqual({
    prices: [admitted],
    balance: DEPOSIT - admitted,
  });
});

it("charges the lower price when the creator lowers the price mid-run", async () => {
  await setPrice(PRICE);
  const renter = await addRenter(DEPOSIT);
  const lowered = PRICE / 4n;

  const { status, body } = await runHeldWhile(renter, "lowered", () => setPrice(lowered));

  expect(status).toBe(200);
  expect(body).toMatchObject({ status: "completed", cost_wei: Number(lowered) });
  expect(await debitOf(body.run_id, renter)).toEqual({
    prices: [lowered],
    balance: DEPOSIT - lowered,
  });
});

it("kept the books: each run debited once, at the price its answer gave", async () => {
  const books = await expectBooksBalance();
  expect([...books.values()].map((run) => run.costWei).sort()).toEqual(
    [PRICE / 4n, PRICE / 2n].map(String).sort(),
  );
});
