import { type ChildProcess, spawn } from "node:child_process";

export type Service = { stop: () => Promise<void> };

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
  const output = (chunk: Buffer) => options.onOutput?.(chunk.toString("utf8"));
  child.stdout?.on("data", output);
  child.stderr?.on("data", output);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", () => running.delete(child));

  const stop = async () => {
    killGroup(child, "SIGTERM");
    // Generous: anvil writes its state and Postgres checkpoints on the way out.
    const timeout = setTimeout(() => killGroup(child, "SIGKILL"), 15_000);
    await exited;
    clearTimeout(timeout);
    killGroup(child, "SIGKILL");
  };
  return { child, service: { stop } };
}

/** Polls `probe` until it resolves, failing with the service's name and last error after `timeoutMs`. */
export async function waitUntilReady(
  name: string,
  probe: () => Promise<unknown>,
  { timeoutMs = 30_000, child }: { timeoutMs?: number; child?: ChildProcess } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(
        `${name} exited before it was ready (code ${child.exitCode ?? child.signalCode})`,
      );
    }
    try {
      await probe();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${name} was not ready after ${timeoutMs} ms: ${String(lastError)}`);
}
