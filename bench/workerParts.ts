// The worker's part of a run's start, each piece measured alone in this process, one at a time, on the
// stack's database and the agents' endpoints: what runtimeForListing does to open a listing's runtime,
// then the runtime called until its request reaches the endpoint.
import { openAgentSecret, readSealedAgent } from "../lib/agents/openAgentSecret.ts";
import type { ModelProvider } from "../lib/manifest/manifestShape.ts";
import { vendorChatModel } from "../workers/execution/declarative/vendorChatModel.ts";
import { guardedFetch } from "../workers/execution/outbound/guardedFetch.ts";
import { type RuntimeDeps, runtimeForListing } from "../workers/execution/runtimeForListing.ts";
import { timed } from "./serialFloor.ts";

export type WorkerParts = {
  /** openAgentSecret: the row read, the seal opened, its JSON parsed. */
  openSecret: number[];
  /** The row read and runtimeForListing: the above, and for a declarative agent its client. */
  openRuntime: number[];
  /** vendorChatModel alone: the official client built with the creator's key (declarative only). */
  buildClient: number[];
  /** From calling the runtime to its request's arrival at the endpoint. */
  callToRequest: number[];
};

const wallClock = () => performance.timeOrigin + performance.now();

export async function measureWorkerParts(options: {
  deps: RuntimeDeps;
  listing: string;
  /** A declarative agent's model. */
  model?: { provider: ModelProvider; model: string };
  /** When the request of the run `runId`, just finished, reached the endpoint (epoch ms). */
  arrivalOf: (runId: string) => Promise<number>;
  samples: number;
}): Promise<WorkerParts> {
  const { deps, listing, model, samples } = options;
  const warmUp = Math.ceil(samples / 10);
  const runtimeFor = runtimeForListing(deps);
  const agent = await readSealedAgent(deps.db, listing);
  const secret = agent?.open(deps.sealingKey);
  if (!secret) throw new Error(`no agent is registered under ${listing}`);
  const selfHostedFetch = guardedFetch({ policy: deps.policy });

  const callToRequest: number[] = [];
  for (let i = 0; i < warmUp + samples; i++) {
    const runtime = await runtimeFor(agent);
    const runId = `run-part-${i}`;
    const calledAt = wallClock();
    const outcome = await runtime({
      runId,
      listingId: listing,
      task: "Answer the benchmark.",
      input: { text: "hello" },
      deadline: Date.now() + 30_000,
      signal: new AbortController().signal,
      onDelta: () => {},
    });
    if (outcome.status !== "completed") throw new Error(`a run failed: ${outcome.failure}`);
    const arrivedAt = await options.arrivalOf(runId);
    if (i >= warmUp) callToRequest.push(arrivedAt - calledAt);
  }
  return {
    openSecret: await timed(samples, warmUp, () =>
      openAgentSecret(deps.db, deps.sealingKey, listing),
    ),
    openRuntime: await timed(samples, warmUp, async () =>
      runtimeFor(await readSealedAgent(deps.db, listing)),
    ),
    buildClient: model
      ? await timed(samples, warmUp, async () =>
          vendorChatModel(model, secret, { endpoints: deps.vendors, selfHostedFetch }),
        )
      : [],
    callToRequest,
  };
}
