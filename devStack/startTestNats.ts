// NATS JetStream for the stack: one server, or a cluster of several on loopback, each node with a
// store of its own, so that a test can stop, kill and restart one as an outage would.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { findFreePort } from "./findFreePort.ts";
import { type Nats, type NatsClusterNode, startNats } from "./startNats.ts";

/** One server of the stack's NATS. */
export type TestNatsServer = {
  natsUrl: string;
  /** Its name in the cluster (JetStream names stream leaders by it); none alone. */
  serverName?: string;
  /** Sends `signal` to the server (if running), e.g. SIGSTOP to freeze it. */
  kill: (signal: NodeJS.Signals) => void;
  /** Stops the server but keeps its JetStream store, as an outage would. */
  stopServer: () => Promise<void>;
  /** SIGKILLs the server, as a crash would; its store stays for `startServer`. */
  killServer: () => Promise<void>;
  /** Starts it again on the same ports and store. */
  startServer: () => Promise<void>;
};

export type TestNats = Omit<TestNatsServer, "killServer" | "serverName"> & {
  /** Every server's URL, comma-separated: what NATS_URL holds. */
  natsUrl: string;
  /** The servers: one, or the cluster's nodes. */
  servers: TestNatsServer[];
  /** Copies of each stream the bus creates: one per server. */
  replicas: number;
  stop: () => Promise<void>;
};

/** Starts `count` servers in `dir` (a cluster when more than one); resolves once all are ready. */
export async function startTestNats({
  count,
  dir,
  onOutput,
}: {
  count: number;
  dir: string;
  onOutput?: (line: string) => void;
}): Promise<TestNats> {
  const name = `stack-${randomBytes(4).toString("hex")}`;
  const ports: { port: number; monitorPort: number }[] = [];
  for (let i = 0; i < count; i++) {
    ports.push({ port: await findFreePort(), monitorPort: await findFreePort() });
  }
  const routePorts: number[] = [];
  if (count > 1) for (let i = 0; i < count; i++) routePorts.push(await findFreePort());

  const servers = ports.map(({ port, monitorPort }, i) => {
    const cluster: NatsClusterNode | undefined =
      count > 1
        ? { name, serverName: `${name}-${i}`, routePort: routePorts[i] as number, routePorts }
        : undefined;
    const storeDir = join(dir, count > 1 ? `nats-${i}` : "nats");
    let server: Nats | undefined;
    const end = async (how: (running: Nats) => Promise<void>) => {
      if (server) await how(server);
      server = undefined;
    };
    return {
      natsUrl: `nats://127.0.0.1:${port}`,
      serverName: cluster?.serverName,
      kill: (signal: NodeJS.Signals) => server?.kill(signal),
      startServer: async () => {
        server ??= await startNats({ port, monitorPort, storeDir, cluster, onOutput });
      },
      stopServer: () => end((running) => running.stop()),
      killServer: () =>
        end(async (running) => {
          running.kill("SIGKILL");
          await running.exited;
        }),
    };
  });
  const stopAll = async () => {
    await Promise.all(servers.map((server) => server.stopServer()));
  };
  // The nodes of a cluster become ready together, once they have elected JetStream's meta leader.
  const started = await Promise.allSettled(servers.map((server) => server.startServer()));
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  return {
    natsUrl: servers.map((server) => server.natsUrl).join(","),
    servers,
    replicas: count,
    kill: (signal) => {
      for (const server of servers) server.kill(signal);
    },
    stopServer: stopAll,
    startServer: async () => {
      await Promise.all(servers.map((server) => server.startServer()));
    },
    stop: stopAll,
  };
}
