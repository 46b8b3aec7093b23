import { startManifestValidationThreads } from "../../lib/manifest/manifestValidationThreads.ts";
import {
  INPUT_CHECK_BUDGET_MS,
  INPUT_CHECK_WAIT_MS,
  INPUT_CHECKS_BUSY_PER_LISTING,
  INPUT_CHECKS_WAITING_PER_LISTING,
  INPUT_VALIDATION_THREADS,
} from "../limits.ts";

/**
 * The validation threads an API process checks tasks' input on: each listing's checks queue apart,
 * listings take turns and none holds every thread, so that one listing's slow schema and backlog
 * cannot hold another listing's check. An API process starts them `eager`ly: its first checks, and
 * other listings' checks while one listing's slow checks keep terminating a thread, find a thread
 * started and warm (a start costs half a second to a second).
 */
export function startInputValidationThreads({ eager = false }: { eager?: boolean } = {}) {
  return startManifestValidationThreads({
    threads: INPUT_VALIDATION_THREADS,
    checkBudgetMs: INPUT_CHECK_BUDGET_MS,
    waitMs: INPUT_CHECK_WAIT_MS,
    waitingPerKey: INPUT_CHECKS_WAITING_PER_LISTING,
    busyPerKey: INPUT_CHECKS_BUSY_PER_LISTING,
    eager,
  });
}
