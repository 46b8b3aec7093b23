import { fileURLToPath } from "node:url";
import { killGroup, type Service, spawnService, waitUntilReady } from "./spawnService.ts";

export type Ponder = Service & {
  url: string;
  /** Resolves once the projections include block `blockNumber`. */
  waitForBlock: (blockNumber: bigint | number, timeoutMs?: number) => Promise<void>;
  /** Sends `signal` to Ponder's process group, e.g. SIGKILL to simulate a crash. */
  kill: (signal: NodeJS.Signals) => void;
};

export type PonderOptions = {
  port: number;
  databaseUrl: string;
  rpcUrl: string;
  deploymentFile: string;
  /** The schema this build indexes into. */
  schema: string;
  /** The stable schema of views other processes read. */
  viewsSchema: string;
  onOutput?: (line: string) => void;
};

const projectRoot = fileURLToPath(new URL("..", import.meta.url));
const ponderBin = fileURLToPath(
  new URL("../node_modules/ponder/dist/esm/bin/ponder.js", import.meta.url),
);

/** Runs `ponder start` and resolves once its backfill is done (`/ready` answers 200). */
export async function startPonder(options: PonderOptions): Promise<Ponder> {
  const args = [
    ponderBin,
    "start",
    ...["--schema", options.schema, "--views-schema", options.viewsSchema],
    ...["--port", String(options.port), "--hostname", "127.0.0.1"],
  ];
  const { child, service } = spawnService(process.execPath, args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      RPC_URL: options.rpcUrl,
      DEPLOYMENT_FILE: options.deploymentFile,
      PONDER_TELEMETRY_DISABLED: "true",
    },
    onOutput: options.onOutput,
  });
  const url = `http://127.0.0.1:${options.port}`;
  await waitUntilReady(
    "ponder",
    async () => {
      const response = await fetch(`${url}/ready`);
      if (response.status !== 200) throw new Error(`/ready answered ${response.status}`);
    },
    { child, timeoutMs: 120_000, ports: [options.port] },
  );

  const waitForBlock = (blockNumber: bigint | number, timeoutMs = 30_000) =>
    waitUntilReady(
      `ponder indexing block ${blockNumber}`,
      async () => {
        const status = (await (await fetch(`${url}/status`)).json()) as Record<
          string,
          { block: { number: number } }
        >;
        const indexed = Object.values(status)[0]?.block.number ?? -1;
        if (indexed < Number(blockNumber)) throw new Error(`indexed through ${indexed}`);
      },
      { child, timeoutMs },
    );
  const kill = (signal: NodeJS.Signals) => killGroup(child, signal);
  return { ...service, url, waitForBlock, kill };
}
