import { existsSync } from "node:fs";
import { readFile, rename } from "node:fs/promises";
import { createRequire } from "node:module";
import { requireBinary } from "./requireBinary.ts";
import { killGroup, type Service, spawnService, waitUntilReady } from "./spawnService.ts";

export type Anvil = Service & {
  rpcUrl: string;
  chainId: number;
  /** Sends `signal` to anvil's process group, e.g. SIGSTOP to freeze the chain. */
  kill: (signal: NodeJS.Signals) => void;
};

export type AnvilOptions = {
  port: number;
  chainId?: number;
  /** Load the chain from this file if it exists, and keep dumping it there. */
  statePath?: string;
  /** The EVM rules to run by (`shanghai`, `cancun`, …); anvil's latest by default. */
  hardfork?: string;
  /** Mine a block every this many seconds instead of one per transaction (anvil's automine). */
  blockTimeSeconds?: number;
  /** anvil's `--slots-in-an-epoch`: its safe block is this many blocks behind the latest, its finalized block twice as many (anvil's default 32). */
  slotsInAnEpoch?: number;
  onOutput?: (line: string) => void;
};

export async function startAnvil({
  port,
  chainId = 31337,
  statePath,
  hardfork,
  blockTimeSeconds,
  slotsInAnEpoch,
  onOutput,
}: AnvilOptions): Promise<Anvil> {
  const anvil = packagedAnvil() ?? requireBinary("anvil", "npm install");
  const args = ["--host", "127.0.0.1", "--port", String(port), "--chain-id", String(chainId)];
  // anvil's log prints every failed call's data in full, and the API's ERC-1271/6492 check puts a
  // wallet's signature in one: quiet, anvil prints only its errors.
  args.push("--quiet");
  if (hardfork) args.push("--hardfork", hardfork);
  if (blockTimeSeconds !== undefined) args.push("--block-time", String(blockTimeSeconds));
  if (slotsInAnEpoch !== undefined) args.push("--slots-in-an-epoch", String(slotsInAnEpoch));
  if (statePath) {
    await setAsideUnreadableState(statePath);
    args.push("--state", statePath, "--state-interval", "1");
  }
  const { child, service } = spawnService(anvil, args, { onOutput });
  const rpcUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady("anvil", () => rpcRequest(rpcUrl, "eth_chainId"), {
    child,
    ports: [port],
  });
  return { ...service, rpcUrl, chainId, kill: (signal) => killGroup(child, signal) };
}

/**
 * The binary of the `@foundry-rs/anvil` package for this platform, run directly: its `anvil` on PATH
 * is a Node script that only spawns it, and would cost a Node process (about 17 MB) of its own.
 */
function packagedAnvil(): string | undefined {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const binary = process.platform === "win32" ? "anvil.exe" : "anvil";
  try {
    const path = createRequire(import.meta.url).resolve(
      `@foundry-rs/anvil-${process.platform}-${arch}/bin/${binary}`,
    );
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * anvil rewrites its state file in place, so a crash mid-write leaves it truncated, and anvil then
 * refuses to start. Such a file is kept aside and the chain starts afresh.
 */
async function setAsideUnreadableState(statePath: string) {
  let text: string;
  try {
    text = await readFile(statePath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    JSON.parse(text);
  } catch {
    const aside = `${statePath}.unreadable-${Date.now()}`;
    await rename(statePath, aside);
    console.warn(`anvil state ${statePath} was unreadable; kept as ${aside}, starting a new chain`);
  }
}

/** A raw JSON-RPC call, for the few anvil methods viem's clients have no use for. */
export async function rpcRequest(rpcUrl: string, method: string, params: unknown[] = []) {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
