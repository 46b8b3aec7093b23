import { mkdir } from "node:fs/promises";
import { PortTakenError } from "./findFreePort.ts";
import { ensureDebianBinary } from "./requireBinary.ts";
import { killGroup, type Service, spawnService, waitUntilReady } from "./spawnService.ts";

export type Nats = Service & {
  natsUrl: string;
  /** Sends `signal` to the server's process group, e.g. SIGSTOP to freeze it. */
  kill: (signal: NodeJS.Signals) => void;
  /** Resolves once the server has exited. */
  exited: Promise<void>;
};

/** Membership of a cluster: this node's name and route port, and every node's route port. */
export type NatsClusterNode = {
  name: string;
  serverName: string;
  routePort: number;
  routePorts: number[];
};

/** What clients must give: a user and a password, on the client port (never on the routes). */
export type NatsCredentials = { user: string; password: string };

export type NatsOptions = {
  port: number;
  monitorPort: number;
  /** JetStream's store directory. */
  storeDir: string;
  cluster?: NatsClusterNode;
  credentials?: NatsCredentials;
  onOutput?: (line: string) => void;
};

/** A real nats-server with JetStream, installed from Debian when missing and allowed (root). */
export async function startNats({
  port,
  monitorPort,
  storeDir,
  cluster,
  credentials,
  onOutput,
}: NatsOptions): Promise<Nats> {
  const natsServer = ensureDebianBinary("nats-server", "nats-server");
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
    ...(cluster ? clusterArgs(cluster) : []),
    ...(credentials ? ["--user", credentials.user, "--pass", credentials.password] : []),
  ];
  // The holder of a taken port may give it back between the server's exit and the check of who
  // listens on it, so the server's own word that it could not bind is kept too.
  let bindRefused = false;
  const { child, service } = spawnService(natsServer, args, {
    onOutput: (line) => {
      if (line.includes("address already in use")) bindRefused = true;
      onOutput?.(line);
    },
  });
  const outputRead = new Promise((resolve) => child.once("close", resolve));
  // A cluster's node is ready once it has caught up with JetStream's meta leader and its streams.
  const health = cluster ? "healthz" : "healthz?js-enabled-only=true";
  await waitUntilReady(
    "nats-server",
    async () => {
      const response = await fetch(`http://127.0.0.1:${monitorPort}/${health}`);
      if (!response.ok) throw new Error(`healthz answered ${response.status}`);
    },
    { child, ports: [port, monitorPort, ...(cluster ? [cluster.routePort] : [])] },
  ).catch(async (error: unknown) => {
    if (child.exitCode !== null) await outputRead;
    if (bindRefused && !(error instanceof PortTakenError)) {
      throw new PortTakenError(port, "nats-server");
    }
    throw error;
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    ...service,
    natsUrl: credentials
      ? `nats://${credentials.user}:${credentials.password}@127.0.0.1:${port}`
      : `nats://127.0.0.1:${port}`,
    kill: (signal) => killGroup(child, signal),
    exited,
  };
}

function clusterArgs({ name, serverName, routePort, routePorts }: NatsClusterNode): string[] {
  return [
    "--server_name",
    serverName,
    "--cluster_name",
    name,
    "--cluster",
    `nats://127.0.0.1:${routePort}`,
    "--routes",
    routePorts
      .filter((port) => port !== routePort)
      .map((port) => `nats://127.0.0.1:${port}`)
      .join(","),
  ];
}
