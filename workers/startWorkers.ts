import type { Bus } from "../lib/bus/bus.ts";
import type { Database } from "../lib/db/projections.ts";
import type { ReadinessCheck } from "../lib/health/readiness.ts";
import { createLogger } from "../lib/log.ts";
import { type RuntimeDeps, runtimeForListing } from "./execution/runtimeForListing.ts";
import { type ExecutionOptions, startExecution } from "./execution/startExecution.ts";
import { listedOnChain } from "./registration/listedOnChain.ts";
import {
  type RegistrationWorkerOptions,
  startRegistrationWorker,
} from "./registration/registrationWorker.ts";
import { type SettlementOptions, startSettlement } from "./settlement/startSettlement.ts";
import { startWebhooks } from "./webhooks/startWebhooks.ts";
import type { WebhookSettings } from "./webhooks/webhookSettings.ts";

export type WorkersOptions = {
  db: Database;
  bus: Bus;
  sealingKey: Uint8Array;
  /** For settlement's leadership connection, whose session holds the lock, and webhooks' own pool. */
  databaseUrl: string;
  registration: Pick<
    RegistrationWorkerOptions,
    "concurrency" | "ackWaitMs" | "schemaCompileBudgetMs"
  >;
  /**
   * `policy`: where the agents this process runs may be called; `vendors`: where declarative agents
   * reach their model vendors; `repositoryBaseUrl`: where their repo_scoped tools read.
   */
  execution: Pick<
    ExecutionOptions,
    "concurrency" | "leaseMs" | "queueWaitMs" | "outputStoreBytes" | "outputRetentionDays"
  > &
    Pick<RuntimeDeps, "policy" | "vendors" | "repositoryBaseUrl">;
  chain: SettlementOptions["chain"];
  settlement?: Pick<SettlementOptions, "reconcilePatienceMs" | "confirmations">;
  /** Webhook deliveries' retries and deadline (`WEBHOOK_*`). */
  webhooks: WebhookSettings;
};

/**
 * What a process running the workers runs, on the bus it is given: registration, task execution,
 * settlement and webhook delivery. The worker processes and the embedded composition start them this
 * way; `readinessChecks` are what their readiness adds for them.
 */
export async function startWorkers({
  db,
  bus,
  sealingKey,
  databaseUrl,
  registration: registrationOptions,
  execution: { policy, vendors, repositoryBaseUrl, ...executionOptions },
  chain,
  settlement: settlementOptions,
  webhooks: webhookOptions,
}: WorkersOptions): Promise<{
  stop: () => Promise<void>;
  readinessChecks: Record<string, ReadinessCheck>;
}> {
  const log = createLogger("worker");
  const registration = await startRegistrationWorker({
    db,
    bus,
    sealingKey,
    log,
    listedOnChain: listedOnChain(chain),
    ...registrationOptions,
  });
  const execution = await startExecution({
    db,
    bus,
    log,
    runtimeFor: runtimeForListing({ db, sealingKey, policy, vendors, repositoryBaseUrl, log }),
    ...executionOptions,
  });
  const settlement = await startSettlement({
    db,
    bus,
    databaseUrl,
    chain,
    log: log.child("settlement"),
    ...settlementOptions,
  });
  const webhooks = startWebhooks({
    databaseUrl,
    rpcUrl: chain.rpcUrl,
    sealingKey,
    policy,
    log: log.child("webhooks"),
    ...webhookOptions,
  });
  return {
    readinessChecks: { webhooks: webhooks.alive },
    stop: async () => {
      await execution.stop();
      await webhooks.stop();
      await settlement.stop();
      await registration.stop();
    },
  };
}
