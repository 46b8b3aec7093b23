// Why a run failed, as its renter reads it in `failure`: short, fixed texts that never hold a secret.
// The refusal before a run starts has its own home, `runNotStarted.ts`, which the API answers 503.

/** Its worker stopped vouching for it (died, or shut down) before it ended; it is never run again. */
export const RUN_INTERRUPTED = "the run was interrupted";
/** The runtime itself failed: the details are in the worker's log, not in the run. */
export const RUN_INTERNAL_ERROR = "internal error";

/** The agent did not answer within the run's `timeout_seconds`. */
export const runTimedOut = (timeoutSeconds: number) =>
  `the agent did not finish within ${timeoutSeconds} s`;

/** The agent answered, but not with what its `output_schema` promises. */
export const outputMismatch = (path: string, message: string) =>
  `the output does not match output_schema: ${path} ${message}`;
