// NATS JetStream for the stack: one server, or a cluster of several on loopback, each node with a
// store of its own, so that a test can stop, kill and restart one as an outage would.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { findFreePort, PortTakenError } from "./findFreePort.ts";
import { type Nats, type NatsClusterNode, type NatsCredentials, startNats } from "./startNats.ts";

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
  /** Starts it again on the same ports and store (waiting for a port taken meanwhile). */
  startServer: () => Promise<void>;
};

export type TestNats = Omit<TestNatsServer, "killServer" | "serverName"> & {
  /** Every server's URL, comma-separated: what NATS_URL holds (with the credentials, if any). */
  natsUrl: string;
  /** The password clients must give, when the servers require one (user `NATS_USER`). */
  password?: string;
  /** The servers: one, or the cluster's nodes. */
  servers: TestNatsServer[];
  /** Copies of each stream the bus creates: one per server. */
  replicas: number;
  stop: () => Promise<void>;
};

/** The user clients give, with a password, to servers started with `password`. */
export const NATS_USER = "marketplace";

/** How long a restarted server waits for its port to be free again before it gives up. */
const PORT_RECLAIM_MS = 30_000;

/**
 * Starts `count` servers in `dir` (a cluster when more than one); resolves once all are ready. A
 * port taken between being found and being bound moves every server to new ones.
 */
export async function startTestNats(options: {
  count: number;
  /** Servers that refuse clients without a user and a random password. */
  password?: boolean;
  dir: string;
  onOutput?: (line: string) => void;
}): Promise<TestNats> {
  const credentials = options.password
    ? { user: NATS_USER, password: randomBytes(24).toString("hex") }
    : undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPorts({ ...options, credentials }, await freePorts(options.count));
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 5) throw error;
    }
  }
}

type NodePorts = { port: number; monitorPort: number; routePort: number };

async function freePorts(count: number): Promise<NodePorts[]> {
  const ports: NodePorts[] = [];
  for (let i = 0; i < count; i++) {
    ports.push({
      port: await findFreePort(),
      monitorPort: await findFreePort(),
      routePort: count > 1 ? await findFreePort() : 0,
    });
  }
  return ports;
}

/**
 * A restart keeps the server's ports: every client holds its URL and reconnects to it. A port taken
 * meanwhile is waited for (an outgoing connection's port is soon given back) until PORT_RECLAIM_MS.
 */
async function onItsPorts(start: () => Promise<Nats>): Promise<Nats> {
  const deadline = Date.now() + PORT_RECLAIM_MS;
  for (;;) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof PortTakenError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function startOnPorts(
  {
    count,
    credentials,
    dir,
    onOutput,
  }: {
    count: number;
    credentials?: NatsCredentials;
    dir: string;
    onOutput?: (line: string) => void;
  },
  ports: NodePorts[],
): Promise<TestNats> {
  const userInfo = credentials ? `${credentials.user}:${credentials.password}@` : "";
  const name = `stack-${randomBytes(4).toString("hex")}`;
  const routePorts = count > 1 ? ports.map((node) => node.routePort) : [];

  const servers = ports.map(({ port, monitorPort, routePort }, i) => {
    const cluster: NatsClusterNode | undefined =
      count > 1 ? { name, serverName: `${name}-${i}`, routePort, routePorts } : undefined;
    const storeDir = join(dir, count > 1 ? `nats-${i}` : "nats");
    let server: Nats | undefined;
    const start = () => startNats({ port, monitorPort, storeDir, cluster, credentials, onOutput });
    const end = async (how: (running: Nats) => Promise<void>) => {
      if (server) await how(server);
      server = undefined;
    };
    return {
      natsUrl: `nats://${userInfo}127.0.0.1:${port}`,
      serverName: cluster?.serverName,
      kill: (signal: NodeJS.Signals) => server?.kill(signal),
      startFirst: async () => {
        server ??= await start();
      },
      startServer: async () => {
        server ??= await onItsPorts(start);
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
  const started = await Promise.allSettled(servers.map((server) => server.startFirst()));
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  return {
    natsUrl: servers.map((server) => server.natsUrl).join(","),
    password: credentials?.password,
    servers: servers.map(({ startFirst: _, ...server }) => server),
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
