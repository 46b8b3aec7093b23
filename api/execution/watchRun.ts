import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Bus } from "../../lib/bus/bus.ts";
import type { RunRow } from "../../lib/db/appSchema.ts";
import { runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { decodeNotice, runTopic } from "../../lib/runLedger/notices.ts";
import { RUN_REREAD_MS } from "../limits.ts";

/** A delta of the run's output; `at`, when known, is how many characters of output came before it. */
export type OnDelta = (delta: string, at: number | undefined) => void;

export type RunWatch = {
  /**
   * The run's row once `until` holds for it, read on every notice and at least every
   * `RUN_REREAD_MS` (a notice may be lost); undefined when `deadline` (ms since the epoch) passes or
   * `signal` aborts first.
   */
  until: (
    until: (row: RunRow) => boolean,
    options: { deadline: number; signal?: AbortSignal },
  ) => Promise<RunRow | undefined>;
  /**
   * The whole output of an answered run whose row keeps a cut copy, from its pieces announced while
   * this watch listened, when they are all here and hash to the row's `output_sha256`.
   */
  wholeOutput: (row: RunRow) => WholeOutput | undefined;
  /** Stops listening; again, does nothing more. */
  stop: () => Promise<void>;
};

export type WholeOutput = { output: unknown };

/**
 * Listens to a run's notices from now on: its output deltas go to `onDelta` as they come (a lost
 * notice is never seen; `at` tells the gap). Start it
 * before the run exists, so that no notice is missed.
 */
export function watchRun(
  { db, bus }: { db: Database; bus: Bus },
  runId: string,
  onDelta: OnDelta = () => {},
): RunWatch {
  let wake: (() => void) | undefined;
  /** A change was announced since the row was last read: read it again at once. */
  let changed = false;
  /** Pieces of the whole output's JSON text, by where they start. */
  const outputParts = new Map<number, string>();
  const subscription = bus.listen(runTopic(runId), (data) => {
    let notice: ReturnType<typeof decodeNotice>;
    try {
      notice = decodeNotice(data);
    } catch {
      return;
    }
    if (notice.kind === "delta" && typeof notice.delta === "string") {
      onDelta(notice.delta, typeof notice.at === "number" ? notice.at : undefined);
    } else if (notice.kind === "output") {
      if (typeof notice.part === "string" && Number.isSafeInteger(notice.at)) {
        outputParts.set(notice.at, notice.part);
      }
    } else {
      changed = true;
      wake?.();
    }
  });

  async function until(
    holds: (row: RunRow) => boolean,
    { deadline, signal }: { deadline: number; signal?: AbortSignal },
  ) {
    while (!signal?.aborted) {
      changed = false;
      const [row] = await db.select().from(runs).where(eq(runs.id, runId));
      if (row && holds(row)) return row;
      // Real time, not the app's clock: this waits on real timers.
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      if (changed) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, Math.min(RUN_REREAD_MS, left));
        signal?.addEventListener("abort", done);
        wake = done;
      });
    }
    return undefined;
  }

  function wholeOutput(row: RunRow): WholeOutput | undefined {
    if (!row.outputTruncated || row.outputSha256 === null) return undefined;
    let text = "";
    for (let part = outputParts.get(0); part !== undefined; part = outputParts.get(text.length)) {
      text += part;
    }
    if (createHash("sha256").update(text, "utf8").digest("hex") !== row.outputSha256) {
      return undefined;
    }
    return { output: JSON.parse(text) };
  }

  let stopped: Promise<void> | undefined;
  return { until, wholeOutput, stop: () => (stopped ??= subscription.stop()) };
}
