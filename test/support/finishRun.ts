// Plays the run worker and the settlement on a run's row, for route-level tests of execution until
// those processes answer runs themselves: each step writes what they write (docs/execution.md) and
// notifies through the app's bus as they do. The debit is real: `consumeQuery` as the operator.
import { eq } from "drizzle-orm";
import { decodeEventLog, type Hex } from "viem";
import type { ApiDeps } from "../../api/context.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { devAccount, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { grantSlots } from "../../lib/runs/grantSlots.ts";
import { encodeNotice, runTopic } from "../../lib/runs/notices.ts";
import { RUN_NOT_STARTED } from "../../lib/runs/runNotStarted.ts";
import { readRun } from "./runRows.ts";

type Deps = Pick<ApiDeps, "db" | "bus">;

function changed({ bus }: Deps, runId: string) {
  bus.notify(runTopic(runId), encodeNotice({ kind: "changed" }));
}

/** The worker takes the run: `running`. */
export async function startRun(deps: Deps, runId: string) {
  await deps.db
    .update(runs)
    .set({ status: "running", startedAt: new Date() })
    .where(eq(runs.id, runId));
  changed(deps, runId);
}

/** The agent produced `delta`, `at` characters into the output: a notice, as the worker sends it. */
export function sendDelta({ bus }: Deps, runId: string, delta: string, at?: number) {
  bus.notify(runTopic(runId), encodeNotice({ kind: "delta", delta, at }));
}

/**
 * The worker writes the outcome: a per-task run completed is to be debited, one failed releases its
 * reservation; a run with nothing reserved keeps `none`. Its slot goes to the next waiting run.
 */
export async function finishRun(
  deps: Deps,
  runId: string,
  outcome:
    | { status: "completed"; output: unknown }
    | { status: "failed"; output: string; failure: string },
  durationMs = 1_234,
) {
  const row = await readRun(deps, runId);
  const charge =
    row.charge === "reserved"
      ? outcome.status === "completed"
        ? "debit_pending"
        : "released"
      : row.charge;
  await deps.db
    .update(runs)
    .set({
      status: outcome.status,
      charge,
      output: outcome.output,
      failure: outcome.status === "failed" ? outcome.failure : null,
      durationMs,
      finishedAt: new Date(),
      request: null,
    })
    .where(eq(runs.id, runId));
  await grantSlots(deps, row.onChainListingId);
  changed(deps, runId);
}

/** The sweeper refuses a run no slot freed for: failed, never started, nothing charged. */
export async function refuseUnstartedRun(deps: Deps, runId: string) {
  const row = await readRun(deps, runId);
  await deps.db
    .update(runs)
    .set({
      status: "failed",
      charge: row.charge === "reserved" ? "released" : row.charge,
      failure: RUN_NOT_STARTED,
      finishedAt: new Date(),
      request: null,
    })
    .where(eq(runs.id, runId));
  changed(deps, runId);
}

/**
 * The settlement's debit of a `debit_pending` run mined on-chain (`consumeQuery` as the operator) and
 * its hash written to `debit_tx`, the run not yet marked: as a settlement that stopped between the
 * receipt and the mark leaves it. Returns the receipt and the price debited.
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
  await deps.db.update(runs).set({ debitTx: receipt.transactionHash }).where(eq(runs.id, runId));
  return { receipt, price: consumed.price };
}

/** The settlement debits a `debit_pending` run on-chain as the operator, and marks it `debited`. */
export async function debitRun(deps: Deps, stack: Stack, runId: string) {
  const { receipt, price } = await sendDebit(deps, stack, runId);
  await deps.db
    .update(runs)
    .set({
      charge: "debited",
      costWei: price.toString(),
      debitTx: receipt.transactionHash,
      debitBlock: receipt.blockNumber,
      logged: true,
    })
    .where(eq(runs.id, runId));
  changed(deps, runId);
  return price;
}

/** The settlement marks a run whose debit the contract refused: `refused`, nothing charged. */
export async function refuseDebit(deps: Deps, runId: string) {
  await deps.db.update(runs).set({ charge: "refused", logged: true }).where(eq(runs.id, runId));
  changed(deps, runId);
}

/** A run to the end as the worker and the settlement take it; per task, debited on-chain. */
export async function completeRun(
  deps: Deps,
  stack: Stack,
  runId: string,
  output: unknown,
  durationMs?: number,
) {
  await startRun(deps, runId);
  await finishRun(deps, runId, { status: "completed", output }, durationMs);
  if ((await readRun(deps, runId)).charge === "debit_pending") await debitRun(deps, stack, runId);
}
