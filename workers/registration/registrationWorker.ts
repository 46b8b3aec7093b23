import type { Bus, Subscription } from "../../lib/bus/bus.ts";
import type { Database } from "../../lib/db/projections.ts";
import { REGISTRATION_SUBJECT } from "../../lib/jobs/publishJob.ts";
import type { Logger } from "../../lib/log.ts";
import { startManifestValidationThreads } from "../../lib/manifest/manifestValidationThreads.ts";
import { startUnlistedAgentExpiry } from "./expireUnlistedAgents.ts";
import type { ListedOnChain } from "./listedOnChain.ts";
import { failJob, PermanentJobFailure, processRegistration } from "./processRegistration.ts";

export type RegistrationWorkerOptions = {
  db: Database;
  bus: Bus;
  sealingKey: Uint8Array;
  log: Logger;
  concurrency?: number;
  /** A job held longer without an answer is presumed lost with its worker and redelivered. */
  ackWaitMs?: number;
  /** How long one schema may take to compile (see `startManifestValidationThreads`). */
  schemaCompileBudgetMs?: number;
  /** Whether a listing exists on-chain: unlisted agents expire only when it does not. */
  listedOnChain: ListedOnChain;
};

const MAX_DELIVER = 5;

/**
 * Consumes registration jobs: acknowledged once their outcome is committed, retried on failures.
 * Manifests are validated on worker threads, one per job in hand, never on this event loop.
 */
export async function startRegistrationWorker({
  db,
  bus,
  sealingKey,
  log,
  concurrency = 4,
  ackWaitMs = 30_000,
  schemaCompileBudgetMs,
  listedOnChain,
}: RegistrationWorkerOptions): Promise<Subscription> {
  const validation = startManifestValidationThreads({
    threads: concurrency,
    compileBudgetMs: schemaCompileBudgetMs,
  });
  const subscription = await bus.consume(
    REGISTRATION_SUBJECT,
    { group: "registration", ackWaitMs, maxDeliver: MAX_DELIVER, concurrency },
    async (message) => {
      const jobId = new TextDecoder().decode(message.data);
      // Tell the bus the job is in hand while it takes long (a slow database, a big schema), so it
      // is not redelivered to another worker meanwhile.
      const heartbeat = setInterval(() => {
        message.working().catch((error: unknown) => {
          log.warn("could not extend a held job", { job_id: jobId, error: String(error) });
        });
      }, ackWaitMs / 3);
      try {
        const outcome = await processRegistration(
          { db, sealingKey, validateManifest: validation.validate },
          jobId,
        );
        clearInterval(heartbeat);
        await message.ack();
        log.info("registration processed", { job_id: jobId, outcome });
      } catch (error) {
        clearInterval(heartbeat);
        const permanent = error instanceof PermanentJobFailure;
        log.warn("registration attempt failed", {
          job_id: jobId,
          delivery: message.deliveryCount,
          permanent,
          error: error instanceof Error ? error.message : String(error),
        });
        // Database trouble is worth retrying, until the last delivery gives up.
        if (!permanent && message.deliveryCount < MAX_DELIVER) {
          await message.retry(500 * 2 ** message.deliveryCount);
          return;
        }
        await failJob(db, jobId, {
          code: "internal_error",
          message: "The registration could not be processed",
        });
        await message.reject();
      }
    },
  );
  const expiry = startUnlistedAgentExpiry({ db, listedOnChain, log });
  return {
    stop: async () => {
      expiry.stop();
      await subscription.stop();
      await validation.close();
    },
  };
}
