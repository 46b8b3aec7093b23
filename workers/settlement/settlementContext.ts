import type { Bus } from "../../lib/bus/bus.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import type { SettlementChain } from "./settlementChain.ts";
import type { SettlementLeadership } from "./settlementLeadership.ts";

/** What each settlement step works with. */
export type SettlementContext = {
  db: Database;
  bus: Bus;
  chain: SettlementChain;
  leadership: SettlementLeadership;
  log: Logger;
  /** Most runs debited by one `settle`. */
  debitBatchSize: number;
  /** Most receipts in one anchor. */
  logBatchSize: number;
  /** At most one anchor every `intervalMs` unless a full one waits; when the last was prepared. */
  anchoring: { intervalMs: number; lastPreparedAt: number };
  /** How long to wait for a sent transaction's receipt before looking again on the next round. */
  receiptTimeoutMs: number;
  /** How long a submitted batch may fail to reconcile, while the chain answers, before it is set aside. */
  reconcilePatienceMs: number;
  /** Blocks mined on top of a debit batch's block before its receipt is taken as final (0: once mined). */
  confirmations: bigint;
  /** When each submitted batch that fails to reconcile first failed, in this run of failures. */
  unreconciledSince: Map<string, number>;
};
