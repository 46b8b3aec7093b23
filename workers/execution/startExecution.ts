import type { Bus } from "../../lib/bus/bus.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { startManifestValidationThreads } from "../../lib/manifest/manifestValidationThreads.ts";
import { DEFAULT_RUN_STORAGE } from "../../lib/runLedger/finishRun.ts";
import { createOutputCheck } from "./checkOutput.ts";
import type { RuntimeFor } from "./runAgent.ts";
import { startRunSweeper } from "./runSweeper.ts";
import { startRunWorker } from "./runWorker.ts";

export type ExecutionOptions = {
  db: Database;
  bus: Bus;
  log: Logger;
  runtimeFor: RuntimeFor;
  /** Runs at once in this process (`RUN_WORKER_CONCURRENCY`). */
  concurrency: number;
  /** `RUN_LEASE_MS`. */
  leaseMs: number;
  /** `RUN_QUEUE_WAIT_MS`. */
  queueWaitMs: number;
  /** `RUN_OUTPUT_STORE_BYTES`. */
  outputStoreBytes?: number;
  /** `RUN_OUTPUT_RETENTION_DAYS`. */
  outputRetentionDays?: number;
  sweepIntervalMs?: number;
  drainMs?: number;
};

const DEFAULT_OUTPUT_RETENTION_DAYS = 30;

/** Threads checking outputs: a check is short, and a listing's schema stays compiled on them. */
const OUTPUT_CHECK_THREADS = 2;

/**
 * Task execution in this process: the run worker and the sweeper beside it, outputs checked on
 * threads of their own. Every process that runs workers (worker processes, the embedded one) starts
 * it this way.
 */
export async function startExecution({
  db,
  bus,
  log,
  runtimeFor,
  concurrency,
  leaseMs,
  queueWaitMs,
  outputStoreBytes = DEFAULT_RUN_STORAGE.outputStoreBytes,
  outputRetentionDays = DEFAULT_OUTPUT_RETENTION_DAYS,
  sweepIntervalMs,
  drainMs,
}: ExecutionOptions): Promise<{ stop: () => Promise<void> }> {
  const threads = startManifestValidationThreads({ threads: OUTPUT_CHECK_THREADS });
  const worker = await startRunWorker({
    db,
    bus,
    log,
    runtimeFor,
    checkOutput: createOutputCheck({ threads }),
    storage: { outputStoreBytes },
    concurrency,
    leaseMs,
    drainMs,
  });
  const sweeper = startRunSweeper(
    { db, bus, log, queueWaitMs, outputRetentionDays },
    sweepIntervalMs,
  );
  return {
    stop: async () => {
      await sweeper.stop();
      await worker.stop();
      await threads.close();
    },
  };
}
