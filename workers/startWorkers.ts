import type { Bus } from "../lib/bus/bus.ts";
import type { Database } from "../lib/db/projections.ts";
import { createLogger } from "../lib/log.ts";
import { type RuntimeDeps, runtimeForListing } from "./execution/runtimeForListing.ts";
import { type ExecutionOptions, startExecution } from "./execution/startExecution.ts";
import { listedOnChain } from "./registration/listedOnChain.ts";
import {
  type RegistrationWorkerOptions,
  startRegistrationWorker,
} from "./registration/registrationWorker.ts";
import { type SettlementOptions, startSettlement } from "./settlement/startSettlement.ts";

export type WorkersOptions = {
  db: Database;
  bus: Bus;
  sealingKey: Uint8Array;
  /** For settlement's leadership connection, whose session holds the lock. */
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
};

/**
 * What a process running the workers runs, on the bus it is given: registration, task execution and
 * settlement. The worker processes and the embedded composition start them this way.
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
}: WorkersOptions): Promise<{ stop: () => Promise<void> }> {
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
  return {
    stop: async () => {
      await execution.stop();
      await settlement.stop();
      await registration.stop();
    },
  };
}
