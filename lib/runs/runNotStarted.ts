/**
 * The `failure` of a run refused before it started: no slot freed within the queue wait. It was never
 * run or charged; the API answers it as 503 `service_unavailable`, not as a failed run.
 */
export const RUN_NOT_STARTED = "no slot freed in time";
