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
 * cannot hold another listing's check.
 */
export function startInputValidationThreads() {
  return startManifestValidationThreads({
    threads: INPUT_VALIDATION_THREADS,
    checkBudgetMs: INPUT_CHECK_BUDGET_MS,
    waitMs: INPUT_CHECK_WAIT_MS,
    waitingPerKey: INPUT_CHECKS_WAITING_PER_LISTING,
    busyPerKey: INPUT_CHECKS_BUSY_PER_LISTING,
  });
}
