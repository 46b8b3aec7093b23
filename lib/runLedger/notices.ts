import type { RunCharge, RunRow, RunStatus } from "../db/appSchema.ts";

// What travels on a run's notice topic (`Bus.notify`): output deltas for streams and wake-ups for
// whoever waits on the run. Notices may be lost; the runs row is the truth (docs/execution.md).

export type RunNotice =
  /**
   * Output as the agent produced it; `at` is how many characters of output came before it, so a
   * listener can tell a delta lost in between (absent: no position known).
   */
  | { kind: "delta"; delta: string; at?: number }
  /**
   * A piece of the whole output's JSON text, `at` characters into it, for an output longer than the
   * copy kept in its row: whoever answers the run now serves it whole (docs/execution.md).
   */
  | { kind: "output"; part: string; at: number }
  /**
   * The run's row changed state (granted, taken, finished, settled, refused). `status` and `charge`,
   * when given, are what the change wrote: a waiter that they tell nothing it waits for has happened
   * need not read the row; without them it reads the row again. `answer`, on the end of a run whose
   * answer that end made final, is what the row then holds for it: no one need read it; on the end
   * of a run awaiting its debit, what its answer will be once debited. `costWei`, on a debit, is
   * what it charged: with that answer, the whole answer.
   */
  | {
      kind: "changed";
      status?: RunStatus;
      charge?: RunCharge;
      answer?: RunAnswer;
      costWei?: string;
    };

/** What a run's answer is made of: the columns of its row that `POST /v1/execute` answers with. */
export type RunAnswer = Pick<
  RunRow,
  | "id"
  | "onChainListingId"
  | "status"
  | "charge"
  | "output"
  | "failure"
  | "costWei"
  | "reservedWei"
  | "durationMs"
  | "outputTruncated"
  | "outputSha256"
>;

export const runTopic = (runId: string) => `notices.runs.${runId}`;
/** Wakes the settlement leader: a run awaits its debit or its log. */
export const SETTLEMENT_TOPIC = "notices.settlement";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodeNotice = (notice: RunNotice) => encoder.encode(JSON.stringify(notice));
export const decodeNotice = (data: Uint8Array) => JSON.parse(decoder.decode(data)) as RunNotice;
