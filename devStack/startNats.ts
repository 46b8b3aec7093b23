import { execFileSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { findBinary } from "./requireBinary.ts";
import { killGroup, type Service, spawnService, waitUntilReady } from "./spawnService.ts";

export type Nats = Service & {
  natsUrl: string;
  /** Sends `signal` to the server's process group, e.g. SIGSTOP to freeze it. */
  kill: (signal: NodeJS.Signals) => void;
};

export type NatsOptions = {
  port: number;
  monitorPort: number;
  /** JetStream's store directory. */
  storeDir: string;
  onOutput?: (line: string) => void;
};

const INSTALL_COMMAND = "apt-get update && apt-get install -y nats-server";

/** A real nats-server with JetStream, installed from Debian when missing and allowed (root). */
export async function startNats({
  port,
  monitorPort,
  storeDir,
  onOutput,
}: NatsOptions): Promise<Nats> {
  const natsServer = ensureNatsServer();
  await mkdir(storeDir, { recursive: true });
  const args = [
    "-a",
    "127.0.0.1",
    "-p",
    String(port),
    "-m",
    String(monitorPort),
    "-js",
    "-sd",
    storeDir,
  ];
  const { child, service } = spawnService(natsServer, args, { onOutput });
  await waitUntilReady(
    "nats-server",
    async () => {
      const response = await fetch(`http://127.0.0.1:${monitorPort}/healthz?js-enabled-only=true`);
      if (!response.ok) throw new Error(`healthz answered ${response.status}`);
    },
    { child },
  );
  return {
    ...service,
    natsUrl: `nats://127.0.0.1:${port}`,
    kill: (signal) => killGroup(child, signal),
  };
}

function ensureNatsServer(): string {
  const existing = findBinary("nats-server");
  if (existing) return existing;
  if (process.getuid?.() !== 0) {
    throw new Error(`nats-server was not found on PATH; install it with: ${INSTALL_COMMAND}`);
  }
  console.warn(`nats-server is missing; installing it as root: ${INSTALL_COMMAND}`);
  execFileSync("sh", ["-c", `${INSTALL_COMMAND} >/dev/null`], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  const installed = findBinary("nats-server");
  if (!installed) throw new Error(`nats-server is still missing after: ${INSTALL_COMMAND}`);
  return installed;
}
