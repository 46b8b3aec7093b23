import type { Hex } from "viem";
import { backoffMs } from "../../lib/backoff.ts";
import type { Bus } from "../../lib/bus/bus.ts";
import type { Deployment } from "../../lib/chain/deployMarketplace.ts";
import { LOCAL_CHAIN_ID } from "../../lib/chain/devAccounts.ts";
import { isChainUnavailable } from "../../lib/chain/isChainUnavailable.ts";
import { operatorAccount } from "../../lib/chain/operatorAccount.ts";
import { requireRunKeeper } from "../../lib/chain/requireRunKeeper.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { SETTLEMENT_TOPIC } from "../../lib/runLedger/notices.ts";
import { createAlarm } from "./alarm.ts";
import { nextAnchor, sendAnchor } from "./anchorRuns.ts";
import { debitPendingRuns } from "./debitPendingRuns.ts";
import { describeFailure } from "./describeFailure.ts";
import { reconcileDebits } from "./reconcileDebits.ts";
import { connectSettlementChain } from "./settlementChain.ts";
import type { SettlementContext } from "./settlementContext.ts";
import { settlementLeadership } from "./settlementLeadership.ts";

export type SettlementOptions = {
  db: Database;
  bus: Bus;
  /** For the leadership's own connection, whose session holds the lock. */
  databaseUrl: string;
  chain: { rpcUrl: string; deployment: Deployment; operatorKey?: Hex };
  log: Logger;
  debitBatchSize?: number;
  logBatchSize?: number;
  /** The shortest time between two anchors of receipts, unless a full batch waits. */
  anchorIntervalMs?: number;
  /** How often the leader looks for runs to settle when no notice woke it. */
  pollIntervalMs?: number;
  /** How often a standby tries to take the leadership. */
  leadershipRetryMs?: number;
  receiptTimeoutMs?: number;
  /** The longest wait between attempts while the chain (or Postgres) fails. */
  maxBackoffMs?: number;
  /** How long a submitted batch may fail to reconcile, while the chain answers, before it is set aside. */
  reconcilePatienceMs?: number;
  /**
   * Blocks mined on top of a debit batch's block before its runs are marked debited; unset, 0 on the
   * local chain (no reorgs but those a test makes) and `LIVE_CONFIRMATIONS` elsewhere.
   */
  confirmations?: number;
};

/** Confirmations a debit batch waits for off the local chain (docs/decisions.md, "When is a debit final?"). */
const LIVE_CONFIRMATIONS = 2;

/**
 * The one path that signs with the operator's key. Every settling process runs this; the one holding
 * the leadership debits runs awaiting their debit in `settle` batches, anchoring with them (or alone)
 * the receipts of runs whose cost is final, reconciling submitted transactions first
 * (docs/execution.md, "Settlement"; docs/receipts.md). A leader woken by a notice on
 * `SETTLEMENT_TOPIC` settles at once; otherwise it looks every `pollIntervalMs`. While the chain is
 * unreachable it backs off and changes nothing.
 */
export async function startSettlement({
  db,
  bus,
  databaseUrl,
  chain: { rpcUrl, deployment, operatorKey },
  log,
  debitBatchSize = 50,
  logBatchSize = 200,
  anchorIntervalMs = 2_000,
  pollIntervalMs = 500,
  leadershipRetryMs = 1_000,
  receiptTimeoutMs = 60_000,
  maxBackoffMs = 5_000,
  reconcilePatienceMs = 60_000,
  confirmations = deployment.chainId === LOCAL_CHAIN_ID ? 0 : LIVE_CONFIRMATIONS,
}: SettlementOptions): Promise<{ stop: () => Promise<void> }> {
  const account = operatorAccount(deployment.chainId, operatorKey);
  const connected = connectSettlementChain({
    rpcUrl,
    deployment,
    account,
    pollingIntervalMs: Math.min(pollIntervalMs, 250),
  });
  await untilChainAnswers(log, maxBackoffMs, () =>
    requireRunKeeper(connected.client, deployment.address, account.address),
  );

  let running = true;
  let abandon: (error: Error) => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    abandon = reject;
  });
  stopped.catch(() => {});
  const wake = createAlarm();
  const idle = createAlarm();
  const leadership = settlementLeadership(databaseUrl);
  const context: SettlementContext = {
    db,
    bus,
    // A stop abandons a receipt still awaited: the next leader reconciles its transaction.
    chain: {
      ...connected,
      receiptOf: (hash, ms) => Promise.race([connected.receiptOf(hash, ms), stopped]),
    },
    leadership,
    log,
    debitBatchSize,
    logBatchSize,
    anchoring: { intervalMs: anchorIntervalMs, lastPreparedAt: 0 },
    receiptTimeoutMs,
    reconcilePatienceMs,
    confirmations: BigInt(confirmations),
    unreconciledSince: new Map(),
  };
  const notices = bus.listen(SETTLEMENT_TOPIC, () => wake.ring());

  async function settleWhileLeading() {
    let failures = 0;
    // Submissions not read back exist only where a leader stopped or a step failed before reading
    // them, or, with confirmations to wait for, where a batch was mined: looked for when leading
    // starts and after a failure, until none is left, and every round while batches await them.
    let mayHoldSubmissions = true;
    let leadershipCheckedAt = 0;
    while (running) {
      try {
        // Each send checks it again; between sends, a leader that lost the lock learns it soon enough.
        if (Date.now() - leadershipCheckedAt >= pollIntervalMs) {
          if (!(await leadership.leads())) {
            log.warn("settlement leadership lost");
            return;
          }
          leadershipCheckedAt = Date.now();
        }
        if (mayHoldSubmissions || context.confirmations > 0n) {
          mayHoldSubmissions = (await reconcileDebits(context)) > 0;
        }
        const anchor = await nextAnchor(context);
        const debited = await debitPendingRuns(context, anchor);
        if (anchor && debited === 0) await sendAnchor(context, anchor);
        const anchored = anchor?.runs ?? 0;
        failures = 0;
        // A full batch may have left more behind; otherwise a notice that came meanwhile (kept by
        // the alarm) or the poll says when to look again.
        if (debited < debitBatchSize && anchored < logBatchSize) await wake.sleep(pollIntervalMs);
      } catch (error) {
        if (!running) return;
        mayHoldSubmissions = true;
        failures += 1;
        const retryInMs = backoffMs(failures, { maxMs: maxBackoffMs });
        if (isChainUnavailable(error)) {
          log.warn("chain unreachable; settlement waits", {
            retry_in_ms: retryInMs,
            attempt: failures,
          });
        } else {
          log.error("settlement step failed", {
            error: describeFailure(error),
            retry_in_ms: retryInMs,
          });
        }
        await idle.sleep(retryInMs);
      }
    }
  }

  const loop = (async () => {
    while (running) {
      const leading = await leadership.tryLead().catch((error: unknown) => {
        log.warn("settlement cannot reach Postgres for its leadership", {
          error: describeFailure(error),
        });
        return false;
      });
      if (!leading) {
        await idle.sleep(leadershipRetryMs);
        continue;
      }
      log.info("settlement leadership taken", { operator: account.address });
      await settleWhileLeading();
    }
  })();
  log.info("settlement started", {
    operator: account.address,
    marketplace: deployment.address,
    confirmations,
  });

  return {
    stop: async () => {
      running = false;
      abandon(new Error("settlement stopped"));
      wake.ring();
      idle.ring();
      await loop;
      await notices.stop();
      await leadership.close();
    },
  };
}

/** Runs `check` until the chain answers it: a chain down at start delays settlement, nothing more. */
async function untilChainAnswers(log: Logger, maxBackoffMs: number, check: () => Promise<void>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await check();
    } catch (error) {
      if (!isChainUnavailable(error)) throw error;
      const retryInMs = backoffMs(attempt, { maxMs: maxBackoffMs });
      log.warn("chain unreachable; settlement waits to check its key", { retry_in_ms: retryInMs });
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}
