import { fileURLToPath } from "node:url";
import { killGroup, type Service, spawnService } from "./spawnService.ts";

export type Worker = Service & {
  /** Sends `signal` to the worker's process group, e.g. SIGKILL to simulate a crash. */
  kill: (signal: NodeJS.Signals) => void;
  exited: Promise<void>;
};

const workerScript = fileURLToPath(new URL("../workers/main.ts", import.meta.url));

/**
 * Runs workers/main.ts (or `script`, another composition of the workers that prints "workers
 * started" too) as a process of its own; resolves once it consumes from the bus.
 */
export function startWorker({
  env,
  onOutput,
  script = workerScript,
}: {
  env: Record<string, string>;
  onOutput?: (line: string) => void;
  script?: string;
}): Promise<Worker> {
  return new Promise((resolve, reject) => {
    let started = false;
    const { child, service } = spawnService(process.execPath, [script], {
      env: { ...process.env, ...env },
      onOutput: (line) => {
        onOutput?.(line);
        if (!started && line.includes('"workers started"')) {
          started = true;
          resolve({ ...service, kill, exited });
        }
      },
    });
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    const kill = (signal: NodeJS.Signals) => killGroup(child, signal);
    child.once("exit", (code) => {
      if (!started) reject(new Error(`the worker exited before it started (code ${code})`));
    });
  });
}
