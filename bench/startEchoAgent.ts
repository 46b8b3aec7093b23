import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { DevCertificates } from "../devStack/devCertificates.ts";

export type EchoAgentCommand =
  | { kind: "secrets"; secrets: Record<string, string> }
  | { kind: "take arrivals" };

export type EchoAgentReport =
  | { kind: "listening"; port: number }
  | { kind: "secrets set" }
  | { kind: "arrivals"; arrivals: [string, number][]; refused: number };

export type EchoAgent = {
  /** The agent's `entrypoint_url` at `path`. */
  url: (path: string) => string;
  /** Tells the agent each path's webhook secret. */
  setSecrets: (secrets: Record<string, string>) => Promise<void>;
  /**
   * Each webhook call received since the last take, by run id, with its arrival time (epoch ms,
   * `performance.timeOrigin + performance.now()` in the agent's process), and the calls refused for
   * a signature that did not verify.
   */
  takeArrivals: () => Promise<{ arrivals: Map<string, number>; refused: number }>;
  stop: () => Promise<void>;
};

const entry = fileURLToPath(new URL("./echoAgent.ts", import.meta.url));

/** Forks the echo agent (bench/echoAgent.ts), serving HTTPS with the dev CA's certificate. */
export async function startEchoAgent(certificates: DevCertificates): Promise<EchoAgent> {
  const child = fork(entry, [], {
    env: {
      ...process.env,
      ECHO_AGENT_KEY: certificates.serverKey,
      ECHO_AGENT_CERTIFICATE: certificates.serverCertificate,
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { port } = await nextReport(child, "listening");
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    setSecrets: async (secrets) => {
      const set = nextReport(child, "secrets set");
      child.send({ kind: "secrets", secrets } satisfies EchoAgentCommand);
      await set;
    },
    takeArrivals: async () => {
      const taken = nextReport(child, "arrivals");
      child.send({ kind: "take arrivals" } satisfies EchoAgentCommand);
      const { arrivals, refused } = await taken;
      return { arrivals: new Map(arrivals), refused };
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill();
      await exited;
    },
  };
}

function nextReport<K extends EchoAgentReport["kind"]>(
  child: ChildProcess,
  kind: K,
): Promise<Extract<EchoAgentReport, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (report: EchoAgentReport) => {
      if (report.kind !== kind) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(report as Extract<EchoAgentReport, { kind: K }>);
    };
    const onExit = (code: number | null) => reject(new Error(`the echo agent exited (${code})`));
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}
