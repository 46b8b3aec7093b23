import type { Bus } from "../../lib/bus/bus.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { encodeNotice, runTopic } from "../../lib/runs/notices.ts";
import type { SettlementChain } from "./settlementChain.ts";
import type { SettlementLeadership } from "./settlementLeadership.ts";

/** What each settlement step works with. */
export type SettlementContext = {
  db: Database;
  bus: Bus;
  chain: SettlementChain;
  leadership: SettlementLeadership;
  log: Logger;
  /** Most runs debited by one `consumeQueries`. */
  debitBatchSize: number;
  /** Most runs logged by one `recordRuns`. */
  logBatchSize: number;
  /** How long to wait for a sent transaction's receipt before looking again on the next round. */
  receiptTimeoutMs: number;
};

/** Tells whoever waits on these runs (the API answering them) that their rows changed. */
export function announceChanged(bus: Bus, runIds: string[]): void {
  for (const runId of runIds) bus.notify(runTopic(runId), encodeNotice({ kind: "changed" }));
}
