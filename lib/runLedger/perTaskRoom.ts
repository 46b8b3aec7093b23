import type { RunCharge } from "../db/appSchema.ts";

/** What the chain said at admission: the block read, and per task the balance and next debit. */
export type BalanceRead = { blockNumber: bigint; balance: bigint; price: bigint };

/**
 * Runs of the credential that the balance read may not show yet, alike in `charge` and `debitTx`:
 * still `reserved`, being debited (`debit_pending`), or `debited` after the block read.
 */
export type HoldingRuns = {
  charge: RunCharge;
  debitTx: string | null;
  /** Their ids, when being debited (the runs a wait would be for). */
  runIds: string[];
  /** Σ what they hold. */
  reservedWei: bigint;
  /** Σ, for each, the lesser of its hold and the current price: what a debit now would take. */
  atPriceWei: bigint;
  /** Σ what they were debited. */
  costWei: bigint;
};

/**
 * Debit transactions looked up against the block read: true when they had succeeded by then (their
 * debits are in the balance read), false when not (not yet mined, mined later, or reverted).
 */
export type DebitsInBalance = ReadonlyMap<string, boolean>;

export type Room =
  | { verdict: "covers" }
  | { verdict: "short" }
  /** Whether these debit transactions are in the balance read decides: look them up, then ask again. */
  | { verdict: "debits_unknown"; transactions: string[] }
  /** Debits in flight may charge less than they hold (the price fell): decide once they settle. */
  | { verdict: "debits_in_flight"; inFlight: string[] };

/**
 * Whether the balance read covers one more run at `price`, given what the credential's runs will
 * still take from it. Each takes a range: a reserved run its hold; a debited one its cost; one being
 * debited nothing if its transaction is in the balance read, else its hold or, at the least, the
 * current price. The balance covers the run if it does at the most they take; it is short if it
 * is at the least they take; in between, what is unknown is looked up or waited for, so that a
 * refusal is never spurious and never waits when the books already decide it.
 */
export function perTaskRoom(
  read: BalanceRead,
  holding: HoldingRuns[],
  inBalance: DebitsInBalance,
): Room {
  let most = 0n;
  let least = 0n;
  const unknown = new Set<string>();
  const inFlight: string[] = [];
  for (const runs of holding) {
    const [low, high] = takes(runs, inBalance);
    least += low;
    most += high;
    if (runs.charge !== "debit_pending" || low === high) continue;
    if (runs.debitTx !== null && !inBalance.has(runs.debitTx)) unknown.add(runs.debitTx);
    else inFlight.push(...runs.runIds);
  }
  if (read.balance - most >= read.price) return { verdict: "covers" };
  if (read.balance - least < read.price) return { verdict: "short" };
  if (unknown.size > 0) return { verdict: "debits_unknown", transactions: [...unknown] };
  return { verdict: "debits_in_flight", inFlight };
}

/** The least and the most `runs` will still take from the balance read. */
function takes(runs: HoldingRuns, inBalance: DebitsInBalance): [bigint, bigint] {
  if (runs.charge === "debited") return [runs.costWei, runs.costWei];
  if (runs.charge !== "debit_pending") return [runs.reservedWei, runs.reservedWei];
  const mined = runs.debitTx === null ? false : inBalance.get(runs.debitTx);
  if (mined === true) return [0n, 0n];
  if (mined === undefined) return [0n, runs.reservedWei];
  return [runs.atPriceWei, runs.reservedWei];
}
