import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Bus } from "../../lib/bus/bus.ts";
import type { RunStatus } from "../../lib/db/appSchema.ts";
import { runs } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import {
  decodeNotice,
  type RunAnswer,
  type RunNotice,
  runTopic,
} from "../../lib/runLedger/notices.ts";
import { type AnsweredRun, isAnswered } from "../../lib/runLedger/runView.ts";
import { RUN_REREAD_MS } from "../limits.ts";

/** A delta of the run's output; `at`, when known, is how many characters of output came before it. */
export type OnDelta = (delta: string, at: number | undefined) => void;

/** What a watcher waits for: a slot (the run left `waiting`), or its final answer (`isAnswered`). */
export type RunGoal = "started" | "answered";

/** What a watch gives once the run reached `goal`. */
export type Reached<Goal extends RunGoal> = Goal extends "answered" ? AnsweredRun : RunAnswer;

const reached: Record<RunGoal, (row: RunAnswer) => boolean> = {
  started: (row) => row.status !== "waiting",
  answered: isAnswered,
};

type Changed = Omit<Extract<RunNotice, { kind: "changed" }>, "kind">;

/**
 * Whether the run may have reached `goal` by the change a notice announced: false only when the
 * state it carries shows it has not (then the row need not be read for it).
 */
function mayHaveReached(goal: RunGoal, { status, charge }: Changed): boolean {
  if (status === undefined) return true;
  if (goal === "started") return status !== "waiting";
  // An ended run whose charge the notice does not tell may be answered.
  return isAnswered({ status, charge: charge ?? "none" });
}

export type RunWatch = {
  /**
   * The run's answer once it reached `goal`: as a notice carried it, or its row, read when a notice
   * tells it may have (a notice carrying the state it announced is read only if that state reached
   * the goal) and at least every `RUN_REREAD_MS` (a notice may be lost); undefined when `deadline`
   * (ms since the epoch) passes or `signal` aborts first.
   */
  until: <Goal extends RunGoal>(
    goal: Goal,
    options: { deadline: number; signal?: AbortSignal },
  ) => Promise<Reached<Goal> | undefined>;
  /**
   * Tells the watch the run was just admitted with `status`: the first `until` then needs no read
   * to know where the run stands.
   */
  admitted: (status: RunStatus) => void;
  /**
   * The whole output of an answered run whose row keeps a cut copy, from its pieces announced while
   * this watch listened, when they are all here and hash to the row's `output_sha256`.
   */
  wholeOutput: (row: RunAnswer) => WholeOutput | undefined;
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
  /** Changes announced since the row was last read (or the run admitted). */
  let heard: Changed[] = [];
  /** Nothing is known of the run yet: the first `until` reads its row at once. */
  let unknown = true;
  /** When the row was last read (or the run admitted), in `Date.now()` time. */
  let lastRead = Date.now();
  /** Pieces of the whole output's JSON text, by where they start. */
  const outputParts = new Map<number, string>();
  /** The answer its end announced, awaiting a debit: a debit's notice completes it. */
  let awaitingDebit: RunAnswer | undefined;
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
    } else if (notice.kind === "changed") {
      const answer = notice.answer?.id === runId ? notice.answer : debitedAnswer(notice);
      if (answer?.charge === "debit_pending") awaitingDebit = answer;
      heard.push({ status: notice.status, charge: notice.charge, answer });
      wake?.();
    } else {
      // Anything else tells nothing of where the run stands: read it.
      heard.push({});
      wake?.();
    }
  });

  async function until<Goal extends RunGoal>(
    goal: Goal,
    { deadline, signal }: { deadline: number; signal?: AbortSignal },
  ): Promise<Reached<Goal> | undefined> {
    let read = unknown;
    while (!signal?.aborted) {
      const told = heard.find(({ answer }) => answer && reached[goal](answer))?.answer;
      if (told) return told as Reached<Goal>;
      if (read || heard.some((changed) => mayHaveReached(goal, changed))) {
        heard = [];
        unknown = false;
        lastRead = Date.now();
        const [row] = await db.select().from(runs).where(eq(runs.id, runId));
        if (row && reached[goal](row)) return row as Reached<Goal>;
      } else {
        heard = [];
      }
      // Real time, not the app's clock: this waits on real timers.
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      if (heard.length > 0) {
        read = false;
        continue;
      }
      const untilReread = lastRead + RUN_REREAD_MS - Date.now();
      read = await new Promise<boolean>((resolve) => {
        const done = (timedOut: boolean) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", aborted);
          wake = undefined;
          resolve(timedOut);
        };
        const aborted = () => done(false);
        const timer = setTimeout(() => done(true), Math.max(0, Math.min(untilReread, left)));
        signal?.addEventListener("abort", aborted);
        wake = () => done(false);
      });
      // A notice that woke the wait after a reread fell due does not put the reread off.
      if (!read && Date.now() >= lastRead + RUN_REREAD_MS) read = true;
    }
    return undefined;
  }

  /** The whole answer of a run whose end was heard awaiting its debit, once a debit's notice comes. */
  function debitedAnswer({ charge, costWei }: Changed): RunAnswer | undefined {
    if (charge !== "debited" || typeof costWei !== "string" || !awaitingDebit) return undefined;
    return { ...awaitingDebit, charge, costWei };
  }

  function admitted(status: RunStatus) {
    if (!unknown) return;
    unknown = false;
    lastRead = Date.now();
    heard.push({ status });
  }

  function wholeOutput(row: RunAnswer): WholeOutput | undefined {
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
  return { until, admitted, wholeOutput, stop: () => (stopped ??= subscription.stop()) };
}
