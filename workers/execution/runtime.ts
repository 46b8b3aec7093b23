import type { Hex } from "viem";
import type { TokenUsage } from "./declarative/chatModel.ts";

// What every kind of agent runs behind: a worker hands a run to a runtime and gets its outcome.

/** One run as a runtime sees it. */
export type RunContext = {
  runId: string;
  /** 0x-prefixed on-chain listing id. */
  listingId: string;
  task: string;
  input?: string | Record<string, unknown>;
  inputUri?: string;
  /** When the run must be over (ms since the epoch); `signal` aborts at the latest then. */
  deadline: number;
  signal: AbortSignal;
  /** Output as the agent produces it, for `/v1/execute/stream`; may be called zero or more times. */
  onDelta: (delta: string) => void;
};

/**
 * A run's end. `output` is what the renter receives when it completed (validated against the
 * agent's `output_schema` by the worker afterwards); when it failed, the partial output so far and a
 * short reason for the renter that never holds a secret.
 */
export type RunOutcome = (
  | { status: "completed"; output: unknown }
  | { status: "failed"; output: string; failure: string }
) & {
  /** What ran it, for its receipt: set by `runAgent` from the runtime's `ranBy`. */
  ranBy?: AgentIdentity;
  /** The tokens its model vendor counted, summed over its turns, where the vendor reports them. */
  usage?: TokenUsage;
};

/** What a run's receipt names as its agent (docs/receipts.md). */
export type AgentIdentity = { vendor: string; model: string } | { endpoint_sha256: Hex };

export type Runtime = ((run: RunContext) => Promise<RunOutcome>) & { ranBy?: AgentIdentity };

/** `runtime`, naming what runs it. */
export const identified = (runtime: Runtime, ranBy: AgentIdentity): Runtime =>
  Object.assign((run: RunContext) => runtime(run), { ranBy });
