import { fileURLToPath } from "node:url";
import { killGroup, type Service, spawnService, waitUntilReady } from "./spawnService.ts";

export type Api = Service & {
  url: string;
  /** The process started (with API_PROCESSES above 1, the primary of the API's processes). */
  pid: number;
  /** Sends `signal` to the API's process group, e.g. SIGKILL to simulate a crash. */
  kill: (signal: NodeJS.Signals) => void;
  /** Its exit code once it has exited (null when a signal ended it). */
  exited: Promise<number | null>;
};

export type ApiOptions = {
  port: number;
  /**
   * Environment of api/process/env.ts: DATABASE_URL, RPC_URL, DEPLOYMENT_FILE, JWT_SECRET, ... With NATS_URL
   * the API runs alone; without it, composed with in-process workers (embedded/main.ts).
   */
  env: Record<string, string>;
  onOutput?: (line: string) => void;
  /** Flags for its Node process (e.g. heap sizes). */
  nodeFlags?: string[];
};

const apiServer = fileURLToPath(new URL("../api/process/server.ts", import.meta.url));
const embedded = fileURLToPath(new URL("../embedded/main.ts", import.meta.url));

/** Runs the API as a process of its own and resolves once it answers HTTP. */
export async function startApi({ port, env, onOutput, nodeFlags = [] }: ApiOptions): Promise<Api> {
  const entry = env.NATS_URL ? apiServer : embedded;
  const { child, service } = spawnService(process.execPath, [...nodeFlags, entry], {
    env: { ...process.env, ...env, API_PORT: String(port), API_HOST: "127.0.0.1" },
    onOutput,
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  await waitUntilReady("api", () => fetch(`${url}/v1/listings`), {
    child,
    timeoutMs: 60_000,
    ports: [port],
  });
  const pid = child.pid as number;
  return { ...service, url, pid, kill: (signal) => killGroup(child, signal), exited };
}
