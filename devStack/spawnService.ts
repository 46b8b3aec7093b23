import { type ChildProcess, spawn } from "node:child_process";
import { basename } from "node:path";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { PortTakenError } from "./findFreePort.ts";
import { isListenedOn, listensInGroup, portOwnersKnown } from "./portOwner.ts";

/**
 * `stop()` resolves once the process has exited and every line it printed has been passed on; one
 * that has not exited `graceMs` after SIGTERM (default 15 s) is killed.
 */
export type Service = { stop: (graceMs?: number) => Promise<void> };

const running = new Set<ChildProcess>();

// A crash or an early exit of the parent must not leave servers behind: kill every group we started.
process.once("exit", () => {
  for (const child of running) killGroup(child, "SIGKILL");
});

/** Sends `signal` to `child`'s process group, unless it is gone already. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error; // ESRCH: already gone
  }
}

/**
 * Starts `command` in a process group of its own (wrappers such as the npm `anvil` spawn the real binary
 * as a child), so stopping it stops every descendant.
 */
export function spawnService(
  command: string,
  args: string[],
  options: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    /** Runs it as this user and group (as root). */
    uid?: number;
    gid?: number;
    /** Each whole line the process prints (with its "\n"), from stdout and stderr. */
    onOutput?: (line: string) => void;
  },
): { child: ChildProcess; service: Service } {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    uid: options.uid,
    gid: options.gid,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  // Read even when nobody listens: a full pipe would stall the process.
  const onOutput = options.onOutput ?? (() => {});
  for (const stream of [child.stdout, child.stderr]) if (stream) passLines(stream, onOutput);
  // "close" follows "exit" once the process's output has been read to its end and passed on.
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  let stopping = false;
  child.once("exit", (code, signal) => {
    running.delete(child);
    // A service that fails unasked leaves its clients with refused connections and no reason.
    if (!stopping && (signal !== null || code !== 0)) {
      const name = [command, args[0] ?? ""].map((part) => basename(part)).join(" ");
      console.error(`${name} exited unasked (${signal ?? `code ${code}`})`);
    }
  });

  // Generous by default: anvil writes its state and Postgres checkpoints on the way out.
  const stop = async (graceMs = 15_000) => {
    stopping = true;
    killGroup(child, "SIGTERM");
    const timeout = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
    await closed;
    clearTimeout(timeout);
    killGroup(child, "SIGKILL");
  };
  return { child, service: { stop } };
}

/** A line longer than this is passed on in pieces, so a process that never ends one costs no memory. */
const LONGEST_LINE = 1 << 20;

/**
 * Passes `stream` on a whole line at a time: a line of one process is never split by another's in a
 * shared log, so a reader (or a scan for secrets) sees each line entire.
 */
function passLines(stream: Readable, onLine: (line: string) => void) {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  stream.on("data", (chunk: Buffer) => {
    pending += decoder.write(chunk);
    const end = pending.lastIndexOf("\n");
    if (end !== -1) {
      for (const line of pending.slice(0, end + 1).split(/(?<=\n)/)) onLine(line);
      pending = pending.slice(end + 1);
    }
    if (pending.length > LONGEST_LINE) {
      onLine(pending);
      pending = "";
    }
  });
  stream.on("end", () => {
    pending += decoder.end();
    if (pending !== "") onLine(`${pending}\n`);
  });
}

/**
 * Polls `probe` until it resolves, failing with the service's name and last error after `timeoutMs`.
 * With `ports`, the service must listen on each itself: a probe answered by another process that
 * took one, or an exit while another holds one, fails with PortTakenError (the service is stopped),
 * so that `startOnFreePort` starts it again on another.
 */
export async function waitUntilReady(
  name: string,
  probe: () => Promise<unknown>,
  {
    timeoutMs = 30_000,
    child,
    ports = [],
  }: { timeoutMs?: number; child?: ChildProcess; ports?: number[] } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // A probe sent to another process that took the port may never be answered: the service's exit
  // ends the wait for it.
  const exited = new Promise<void>((resolve) => {
    if (child && (child.exitCode !== null || child.signalCode !== null)) resolve();
    else child?.once("exit", () => resolve());
  });
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      const taken = ports.find((port) => isListenedOn(port));
      if (taken !== undefined) throw new PortTakenError(taken, name);
      throw new Error(
        `${name} exited before it was ready (code ${child.exitCode ?? child.signalCode})`,
      );
    }
    try {
      await Promise.race([probe(), exited.then(() => Promise.reject(new Error("exited")))]);
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    const foreign =
      child && portOwnersKnown
        ? ports.find((port) => !listensInGroup(port, child.pid as number))
        : undefined;
    if (child && foreign !== undefined) {
      killGroup(child, "SIGKILL");
      throw new PortTakenError(foreign, name);
    }
    return;
  }
  throw new Error(`${name} was not ready after ${timeoutMs} ms: ${String(lastError)}`);
}
