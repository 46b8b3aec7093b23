// The steps of a run that the run worker and the settlement take, for route-level tests of execution
// that hold each step in hand: every step is the run ledger's own function, as those processes call
// it. The debit is real: `consumeQuery` as the operator.
import { decodeEventLog, type Hex } from "viem";
import type { ApiDeps } from "../../api/process/context.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { devAccount, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { announceChanged, announceDebited, announceDelta } from "../../lib/runLedger/announce.ts";
import { interruptLapsedRuns, refuseWaitingRuns } from "../../lib/runLedger/endStrandedRuns.ts";
import { finishRun as writeEnd } from "../../lib/runLedger/finishRun.ts";
import { grantSlots } from "../../lib/runLedger/grantSlots.ts";
import { markDebited, markSettledUncharged, markSubmitted } from "../../lib/runLedger/markRuns.ts";
import { refuseUnhandedRun } from "../../lib/runLedger/refuseUnhandedRun.ts";
import { renewLeases, takeRun } from "../../lib/runLedger/takeRun.ts";
import { readRun } from "./runRows.ts";

type Deps = Pick<ApiDeps, "db" | "bus" | "log">;

/** The output announced per run, as the worker keeps it. */
const streamed = new Map<string, string>();

/** The worker takes the run: `running`, leased for a minute. */
export async function startRun(deps: Deps, runId: string) {
  if (!(await takeRun(deps, runId, 60_000))) throw new Error(`run ${runId} is not queued`);
}

/**
 * The agent produced `delta`: announced as the worker announces it, `at` characters in (`lost`:
 * announced, but the notice never reached anyone).
 */
export function sendDelta(
  deps: Deps,
  runId: string,
  delta: string,
  at?: number,
  { lost = false } = {},
) {
  const before = streamed.get(runId) ?? "";
  if (!lost) announceDelta(deps.bus, runId, delta, at ?? before.length);
  streamed.set(runId, before + delta);
}

/**
 * The worker writes the outcome (charged iff output reached the renter: it completed, or deltas were
 * sent, which a failed run keeps), then grants the listing's free slots.
 */
export async function finishRun(
  deps: Deps,
  runId: string,
  outcome: { status: "completed"; output: unknown } | { status: "failed"; failure: string },
  durationMs = 1_234,
) {
  const end = { outcome, durationMs, streamed: streamed.get(runId) ?? "" };
  const finished = await writeEnd(deps, runId, end);
  if (!finished) throw new Error(`run ${runId} is not running`);
  await grantSlots(deps, finished.onChainListingId);
}

/** The worker dies (its lease lapses now), and the sweeper fails the run. */
export async function interruptRun(deps: Deps, runId: string) {
  await renewLeases(deps.db, [runId], 0);
  const interrupted = await interruptLapsedRuns(deps);
  if (!interrupted.some(({ id }) => id === runId)) throw new Error(`run ${runId} is not running`);
}

/** The API refuses a queued run no worker took in time: failed before it started (503, nothing charged). */
export async function refuseUnhanded(deps: Deps, runId: string) {
  if (!(await refuseUnhandedRun(deps.db, runId))) throw new Error(`run ${runId} is not queued`);
  announceChanged(deps.bus, [runId]);
}

/** The sweeper refuses the runs no slot freed for, here every run still waiting: as the 503 does. */
export async function refuseWaiting(deps: Deps) {
  await refuseWaitingRuns(deps, 0);
}

/**
 * The settlement's debit of a `debit_pending` run mined on-chain (`consumeQuery` as the operator) and
 * its hash recorded on the run, not yet marked: as a settlement that stopped between the receipt and
 * the mark leaves it. Returns the receipt and the price debited.
 */
export async function sendDebit(deps: Deps, stack: Stack, runId: string) {
  const row = await readRun(deps, runId);
  if (row.charge !== "debit_pending") throw new Error(`run ${runId} is ${row.charge}`);
  const operator = devAccount(LOCAL_ROLES.operator);
  const receipt = await stack.marketplace.mined(
    stack.marketplace
      .as(operator)
      .write.consumeQuery([
        row.onChainListingId as Hex,
        row.wallet as Hex,
        BigInt(row.onChainRunId),
        BigInt(row.reservedWei),
        row.status === "completed",
      ]),
  );
  const [consumed] = receipt.logs.flatMap((log) => {
    try {
      const event = decodeEventLog({ abi: serviceMarketplaceAbi, ...log });
      return event.eventName === "QueryConsumed" ? [event.args] : [];
    } catch {
      return [];
    }
  });
  if (!consumed) throw new Error("consumeQuery emitted no QueryConsumed");
  if (!(await markSubmitted(deps.db, [runId], receipt.transactionHash, receipt.blockNumber))) {
    throw new Error(`run ${runId} was already submitted`);
  }
  return { receipt, price: consumed.price };
}

/** The settlement debits a `debit_pending` run on-chain as the operator, and marks it `debited`. */
export async function debitRun(deps: Deps, stack: Stack, runId: string) {
  const { receipt, price } = await sendDebit(deps, stack, runId);
  const row = await readRun(deps, runId);
  const debit = { price, block: receipt.blockNumber, tx: receipt.transactionHash };
  announceDebited(
    deps.bus,
    await markDebited(deps.db, new Map([[BigInt(row.onChainRunId), debit]])),
  );
  return price;
}

/** The settlement finds the run's debit refused: `refused`, nothing charged. */
export async function refuseDebit(deps: Deps, runId: string) {
  const row = await readRun(deps, runId);
  announceChanged(deps.bus, await markSettledUncharged(deps.db, BigInt(row.onChainRunId)));
}

/** A run to the end as the worker and the settlement take it; per task, debited on-chain. */
export async function completeRun(
  deps: Deps,
  stack: Stack,
  runId: string,
  output: unknown,
  durationMs?: number,
) {
  if ((await readRun(deps, runId)).status === "queued") await startRun(deps, runId);
  await finishRun(deps, runId, { status: "completed", output }, durationMs);
  if ((await readRun(deps, runId)).charge === "debit_pending") await debitRun(deps, stack, runId);
}
