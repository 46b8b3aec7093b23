// The real stack of the execution fault tests (API processes, worker processes over NATS JetStream,
// settlement on anvil) with a behaving connected agent listed per task, and, when asked, a proxy in
// front of the chain to fail on cue. The renters a test makes are kept, for the books it checks last.
import { afterAll, afterEach, beforeAll } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import type { StackOptions } from "../../devStack/startStack.ts";
import { type BehavingAgent, startBehavingAgent } from "./behavingAgent.ts";
import {
  listPerTaskAgent,
  type PerTaskListing,
  perTaskRenter,
  type Renter,
} from "./connectedListing.ts";
import { type CountingRpcProxy, startCountingRpcProxy } from "./countingRpcProxy.ts";
import { expectBooksBalance } from "./perTaskAccounts.ts";
import { useStack } from "./useStack.ts";

export type PerTaskAgentOptions = {
  /** The agent's name, and its path on the behaving agent. */
  name: string;
  price: bigint;
  outputSchema?: object;
  /** Environment of every process of the stack. */
  env?: Record<string, string>;
  /** The stack's parts, over one API process and NATS (say, `api: 3` over a NATS cluster). */
  stackOptions?: StackOptions;
  /** Starts a proxy to anvil (`proxy()`) before `startProcesses`, and restores it after each test. */
  chainProxy?: boolean;
  /**
   * Starts the worker processes (and API processes) the test needs: after the agent, whose dev CA
   * workers read at start, and before the listing, whose registration needs a worker.
   */
  startProcesses: () => Promise<unknown>;
};

export function usePerTaskAgentOnStack({
  name,
  price,
  outputSchema,
  env,
  chainProxy = false,
  stackOptions,
  startProcesses,
}: PerTaskAgentOptions) {
  const stack = useStack({
    nats: true,
    api: 1,
    workers: 0,
    rateLimitPerMinute: 10_000,
    env,
    ...stackOptions,
  });
  let agent: BehavingAgent | undefined;
  let proxy: CountingRpcProxy | undefined;
  let listing: PerTaskListing | undefined;
  const renters: Renter[] = [];

  beforeAll(async () => {
    agent = await startBehavingAgent(await ensureDevCertificates(stack().dir));
    if (chainProxy) proxy = await startCountingRpcProxy(stack().anvil.rpcUrl);
    await startProcesses();
    listing = await listPerTaskAgent(stack(), agent, { name, price, outputSchema });
  });
  if (chainProxy) {
    afterEach(() => {
      proxy?.restore();
    });
  }
  afterAll(async () => {
    await agent?.close();
    await proxy?.close();
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started yet`);
    return value;
  };
  const theListing = () => started(listing, "the listing");
  return {
    stack,
    agent: () => started(agent, "the agent"),
    proxy: () => started(proxy, "the chain proxy (chainProxy: true)"),
    listing: theListing,
    /** A fresh renter holding `deposit` on the listing, over the API at `apiUrl()`; its books count. */
    addRenter: async (deposit: bigint, apiUrl?: () => string) => {
      const renter = await perTaskRenter(stack(), theListing(), deposit, apiUrl);
      renters.push(renter);
      return renter;
    },
    /** `expectBooksBalance` over every renter made so far. */
    expectBooksBalance: () => expectBooksBalance(stack(), theListing(), renters),
  };
}
