import type { RunCharge, RunStatus } from "../db/appSchema.ts";

/**
 * Every move of a run's `status` the ledger makes (docs/execution.md, "A run's life"). A run ends
 * `completed` or `failed` and never moves again.
 */
export const STATUS_MOVES = {
  waiting: ["queued", "failed"],
  queued: ["running", "failed"],
  running: ["completed", "failed"],
  completed: [],
  failed: [],
} as const satisfies Record<RunStatus, readonly RunStatus[]>;

/**
 * Every move of a run's `charge`. A reservation is charged iff output reached the renter
 * (`debit_pending`), else `released`; the chain's answer to the debit makes it `debited` or
 * `refused`, and a refused debit the chain turns out to have made after all is `debited`.
 */
export const CHARGE_MOVES = {
  none: [],
  reserved: ["debit_pending", "released"],
  debit_pending: ["debited", "refused"],
  refused: ["debited"],
  debited: [],
  released: [],
} as const satisfies Record<RunCharge, readonly RunCharge[]>;

/** A status move, checked against the table by the type checker: the `where` and `set` of a write. */
export const statusMove = <From extends RunStatus, To extends (typeof STATUS_MOVES)[From][number]>(
  from: From,
  to: To,
) => ({ from, to });

/** A charge move, checked against the table by the type checker. */
export const chargeMove = <From extends RunCharge, To extends (typeof CHARGE_MOVES)[From][number]>(
  from: From,
  to: To,
) => ({ from, to });

/**
 * Charges settlement has done with: a run at one of them has its receipt, whose `cost_wei` is final.
 * A refused one is checked against the chain's run ids before it is anchored (it may yet be debited).
 */
export const SETTLED_CHARGES = [
  "none",
  "released",
  "refused",
  "debited",
] as const satisfies readonly RunCharge[];
