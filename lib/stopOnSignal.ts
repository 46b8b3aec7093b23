import { flushLogs } from "./log.ts";

/** Runs `stop` once on the first SIGINT or SIGTERM, then exits: a process's orderly shutdown. */
export function stopOnSignal(stop: () => Promise<void>): void {
  const exit = orderlyExit(stop);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, exit);
}

/**
 * What stops a process in order: its first call runs `stop`, then exits (1 if `stop` failed), the
 * buffered log lines written out first; later calls do nothing.
 */
export function orderlyExit(stop: () => Promise<void>): () => void {
  let stopping = false;
  return () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => exitFlushed(0),
      (error: unknown) => {
        console.error(error);
        exitFlushed(1);
      },
    );
  };
}

/** Exits with `code` once the log lines still buffered are written out. */
export function exitFlushed(code: number): never {
  try {
    flushLogs();
  } finally {
    process.exit(code);
  }
}
