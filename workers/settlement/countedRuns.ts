import { refusedBeforeStart } from "../../lib/runLedger/runNotStarted.ts";

/** What settlement reads of a finished run to tell whether the chain is to count it. */
export type FinishedRunFacts = {
  /** Lowercase, as `app.runs` keeps wallets. */
  wallet: string;
  /** The listing's creator, lowercase (`app.agents`); null when no agent is registered for it. */
  creator: string | null;
  failure: string | null;
};

/**
 * Whether the chain is to count a finished run in its listing's `run_count` and `success_rate`.
 * Not a run of the listing by its own creator, which would buy the listing its figures, and not one
 * refused before it started (no slot freed, the bus not reached): it was never served, so it is no
 * failure of the agent.
 */
export function countedOnChain(run: FinishedRunFacts): boolean {
  if (refusedBeforeStart(run.failure)) return false;
  return run.creator === null || run.wallet.toLowerCase() !== run.creator.toLowerCase();
}
