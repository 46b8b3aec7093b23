// The API served by several processes on one port (node:cluster, API_PROCESSES): a primary that
// serves nothing itself forks them, replaces one that dies and stops them all in order. The primary
// accepts each connection and hands it to the next process in turn; a keep-alive connection stays
// with the process it was handed to.
import cluster, { type Worker } from "node:cluster";
import type { Logger } from "../../lib/log.ts";
import { exitFlushed, orderlyExit } from "../../lib/stopOnSignal.ts";

/** What the primary sends a process to stop it in order. */
const STOP_REQUEST = "stop";
/** A process that died before it listened is replaced after this pause, not in a tight loop. */
const RESTART_PAUSE_MS = 1_000;
const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Runs the primary: forks `processes` API processes (each runs the entry again, as a cluster worker),
 * forks another in place of one that exits, and on SIGINT or SIGTERM asks each to stop in order and
 * exits once the last has (1 if any failed to). A process that exits before any has listened means
 * the API cannot start: the others are stopped and the primary exits 1, as a single process would.
 */
export function superviseApiProcesses(processes: number, log: Logger): void {
  const running = new Set<Worker>();
  const listened = new WeakSet<Worker>();
  let served = false;
  let stopping = false;
  let exitCode = 0;

  const fork = () => {
    if (stopping) return;
    const worker = cluster.fork().once("listening", () => {
      listened.add(worker);
      served = true;
    });
    running.add(worker);
  };
  const stopAll = (code: number) => {
    exitCode = Math.max(exitCode, code);
    if (stopping) return;
    stopping = true;
    for (const worker of running) {
      // One still starting has nothing to stop in order (and no ear for the request yet); one
      // already gone needs no asking: its exit is counted below.
      if (listened.has(worker)) worker.send(STOP_REQUEST, () => {});
      else worker.process.kill("SIGTERM");
    }
    if (running.size === 0) exitFlushed(exitCode);
  };

  cluster.on("exit", (worker, code, signal) => {
    running.delete(worker);
    const exited = { exited_pid: worker.process.pid, code, signal };
    if (stopping) {
      if (code !== 0 && listened.has(worker)) exitCode = 1;
      if (running.size === 0) exitFlushed(exitCode);
    } else if (!served) {
      log.error("an API process exited before the API served: stopping", exited);
      stopAll(1);
    } else {
      log.warn("an API process exited: starting another", exited);
      setTimeout(fork, listened.has(worker) ? 0 : RESTART_PAUSE_MS);
    }
  });
  for (const signal of SIGNALS) process.once(signal, () => stopAll(0));
  for (let i = 0; i < processes; i++) fork();
  log.info("API processes starting", { processes });
}

/**
 * In an API process of the cluster: stops in order on the primary's request or on SIGINT or SIGTERM,
 * whichever comes first. A signal sent to the process group reaches it as well as the primary, so
 * every later one is ignored instead of ending the stop half-way.
 */
export function stopOnSignalOrRequest(stop: () => Promise<void>): void {
  const exit = orderlyExit(stop);
  process.on("message", (message) => {
    if (message === STOP_REQUEST) exit();
  });
  for (const signal of SIGNALS) process.on(signal, exit);
}
