// Finding: a per-task run that failed after its output reached the renter is charged, and its debit
// counted as a success: only the run log carried an outcome, and such a run's id is settled by its
// debit, so it could never be logged failed. On the real stack (API, a worker process settling on
// anvil, Ponder indexing, a connected agent): the debit carries the run's outcome, and the listing's
// `success_rate` counts the charged failure as a failure.
import { parseEther } from "viem";
import { beforeAll, expect, it } from "vitest";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { indexedFigures } from "../support/listingFigures.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { anchoredCounts, anchoredRuns, runEvents, settledRuns } from "./settlementFixtures.ts";

const PRICE = parseEther("0.001");
const { stack, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "charged-failure",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});
let renter: Renter;

beforeAll(async () => {
  renter = await addRenter(PRICE * 10n);
});

/** Runs `task` as the renter, waits until settlement is done with it, and returns its row. */
async function settledRun(task: string) {
  const reply = await renter.api.post("/v1/execute", { agent_id: listing().agentId, task });
  expect(reply.status).toBe(200);
  const [row] = await settledRuns(stack(), [reply.body.run_id]);
  if (!row) throw new Error(`no run ${reply.body.run_id}`);
  return row;
}

/** The outcome the run's `QueryConsumed` carries. */
async function debitedOutcome(row: { onChainRunId: string }) {
  const debits = await runEvents(stack(), "QueryConsumed", [BigInt(row.onChainRunId)]);
  expect(debits).toHaveLength(1);
  return debits[0]?.args.succeeded;
}

it("counts a run charged for the output it streamed before failing as a failure", async () => {
  const figures = () => indexedFigures(stack(), listing(), renter.api);
  expect(await figures()).toEqual({ run_count: 0, success_rate: 0 });

  const completed = await settledRun(behaving());
  expect(completed).toMatchObject({ status: "completed", charge: "debited" });
  expect(await debitedOutcome(completed)).toBe(true);
  expect(await figures()).toEqual({ run_count: 1, success_rate: 1 });

  // Streams, then answers off its schema: failed, but its output reached the renter, so charged.
  const failed = await settledRun(behaving({ deltas: ["some ", "text"], output: { summary: 42 } }));
  expect(failed).toMatchObject({
    status: "failed",
    charge: "debited",
    costWei: PRICE.toString(),
    output: "some text",
  });
  expect(await debitedOutcome(failed)).toBe(false);
  // Counted by its debit: its receipt is anchored, but no anchor counts it again.
  await anchoredRuns(stack(), [completed.id, failed.id]);
  expect(await anchoredCounts(stack(), listing().listingId)).toEqual({ runs: 0, failed: 0 });
  expect(await figures()).toEqual({ run_count: 2, success_rate: 0.5 });

  await expectBooksBalance();
});
