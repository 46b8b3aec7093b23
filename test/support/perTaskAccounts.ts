// The books of a per-task listing once the faults have cleared: every run final and logged on-chain,
// nothing charged twice, every run that delivered output charged (completed, or failed after part of
// its output was streamed), no other run charged; the runs' costs, the chain's QueryConsumed prices
// and the renters' balance decrease all one sum.
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import type { Stack } from "../../devStack/startStack.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { balanceOf } from "../settlement/settlementFixtures.ts";
import type { PerTaskListing, Renter } from "./connectedListing.ts";
import { until } from "./registration.ts";

type RunRow = typeof runs.$inferSelect;

const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);

/** A run nothing will change any more: ended, its charge settled, logged on-chain. */
const settled = (row: RunRow) =>
  (row.status === "completed" || row.status === "failed") &&
  row.charge !== "reserved" &&
  row.charge !== "debit_pending" &&
  row.logged;

/** Output reached the renter: the run completed, or it failed keeping what it had streamed. */
const delivered = (row: RunRow) =>
  row.status === "completed" || (typeof row.output === "string" && row.output !== "");

/**
 * Waits until every run of `listing` is settled, then checks the books against the chain: a run
 * that delivered output debited once at a price the chain logged for its run id, any other one
 * released and never debited, Σ cost_wei = Σ QueryConsumed prices = what the renters' balances lost. Fails
 * when the listing has no run: the books of a test must hold the runs it made. Returns the runs, by id.
 */
export async function expectBooksBalance(
  stack: Stack,
  listing: PerTaskListing,
  renters: Renter[],
  timeoutMs = 60_000,
): Promise<Map<string, RunRow>> {
  const rows = await until(
    "every run of the listing to settle",
    async () => {
      const rows = await stack.db
        .select()
        .from(runs)
        .where(eq(runs.onChainListingId, listing.listingId));
      return rows.every(settled) && rows;
    },
    timeoutMs,
  );
  // Balanced books of no run prove nothing: a test checks the runs it made.
  expect(renters, "renters whose books to check").not.toHaveLength(0);
  expect(rows, "runs in the books").not.toHaveLength(0);
  const consumed = await stack.marketplace.publicClient.getContractEvents({
    address: stack.deployment.address,
    abi: serviceMarketplaceAbi,
    eventName: "QueryConsumed",
    args: { listingId: listing.listingId },
    fromBlock: BigInt(stack.deployment.startBlock),
    toBlock: "latest",
    strict: true,
  });
  const priceOf = new Map(consumed.map((log) => [log.args.runId, log.args.price]));
  expect(priceOf.size, "a run id debited twice").toBe(consumed.length);

  for (const row of rows) {
    const onChainPrice = priceOf.get(BigInt(row.onChainRunId));
    const books = { charge: row.charge, onChainPrice };
    if (delivered(row)) {
      expect(books, `${row.status} run ${row.id}, output delivered`).toEqual({
        charge: "debited",
        onChainPrice: BigInt(row.costWei),
      });
    } else {
      expect(books, `${row.status} run ${row.id}, nothing delivered`).toEqual({
        charge: "released",
        onChainPrice: undefined,
      });
    }
  }
  const costs = sum(rows.filter((row) => row.charge === "debited").map((r) => BigInt(r.costWei)));
  const balances = await Promise.all(
    renters.map((renter) => balanceOf(stack, listing.listingId, renter.account.address)),
  );
  const decrease = sum(renters.map((renter) => renter.deposit)) - sum(balances);
  expect({ costs, onChain: sum([...priceOf.values()]), decrease }).toEqual({
    costs,
    onChain: costs,
    decrease: costs,
  });
  expect(consumed.length).toBe(rows.filter((row) => row.charge === "debited").length);
  return new Map(rows.map((row) => [row.id, row]));
}
