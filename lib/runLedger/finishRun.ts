import { and, eq, sql } from "drizzle-orm";
import { sha256Json } from "../../sdk/src/receipts/canonicalJson.ts";
import type { Bus } from "../bus/bus.ts";
import { type ReceiptFacts, type RunCharge, runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import type { Logger } from "../log.ts";
import { runsEnded } from "../metrics/metrics.ts";
import { metricsOn } from "../metrics/metricsOn.ts";
import { announceChanged, announceWholeOutput } from "./announce.ts";
import { endedRunColumns } from "./endRun.ts";
import { announceGranted, queueWaitingRuns } from "./grantSlots.ts";
import type { RunAnswer } from "./notices.ts";
import type { RunToPublish } from "./publishRun.ts";
import { RUN_INTERNAL_ERROR } from "./runFailures.ts";
import { type JsonValue, storedOutput } from "./storedOutput.ts";
import { statusMove } from "./transitions.ts";

/** How a run ended, as its worker saw it. */
export type RunEnd = {
  outcome: { status: "completed"; output: unknown } | { status: "failed"; failure: string };
  durationMs: number;
  /** The output announced as deltas so far (what a failed run keeps), as much as is kept of it. */
  streamed: string;
  /** What ran it, for its receipt. */
  ranBy?: AgentFacts;
};

/** The receipt facts only the run's worker knows (docs/receipts.md). */
export type AgentFacts = Pick<
  ReceiptFacts,
  "manifest_cid" | "vendor" | "model" | "endpoint_sha256" | "input_tokens" | "output_tokens"
>;

export type FinishedRun = { onChainListingId: string; charge: RunCharge };

type WrittenEnd = FinishedRun & { granted: RunToPublish[]; answer: RunAnswer };

/** The run ledger's bounds on what a run's row keeps. */
export type RunStorage = {
  /** `RUN_OUTPUT_STORE_BYTES`: the most JSON text of an output a row keeps. */
  outputStoreBytes: number;
};

export const DEFAULT_RUN_STORAGE: RunStorage = { outputStoreBytes: 262_144 };

const ATTEMPTS = 6;
const COMPLETE = statusMove("running", "completed");

/**
 * Writes a running run's end in one statement (status, output, failure, duration, its charge moved
 * on by the charging rule), grants the slot it frees in the same transaction (`queueWaitingRuns`),
 * and announces both. The rule: output delivered ⇒ charged, nothing
 * delivered ⇒ not charged. A completed run delivered its output; a failed one delivered what it
 * streamed, which it keeps as its output, and nothing else of what its agent produced. Undefined when the run is no longer `running` (the sweeper ended it when its
 * lease ran out: its end stands), or when the database stayed unreachable through every attempt (its
 * lease lapses, and the sweeper ends it as interrupted). An output the database refuses to store (a
 * data exception) fails the run instead of being tried again.
 */
export async function finishRun(
  {
    db,
    bus,
    log,
    storage = DEFAULT_RUN_STORAGE,
  }: { db: Database; bus: Bus; log: Logger; storage?: RunStorage },
  runId: string,
  end: RunEnd,
): Promise<FinishedRun | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      const written = await writeEnd({ db, bus, storage }, runId, end);
      if (!written) return undefined;
      const { granted, answer, ...finished } = written;
      if (metricsOn()) runsEnded.inc({ status: end.outcome.status, charge: finished.charge });
      const debitPending = finished.charge === "debit_pending";
      announceChanged(bus, [runId], debitPending, {
        status: end.outcome.status,
        charge: finished.charge,
        answer,
      });
      await announceGranted(bus, granted);
      return finished;
    } catch (error) {
      if (isDataException(error) && end.outcome.status === "completed") {
        log.warn("the database refused a run's output", { run_id: runId, error: String(error) });
        end = { ...end, outcome: { status: "failed", failure: RUN_INTERNAL_ERROR } };
        continue;
      }
      if (attempt >= ATTEMPTS) {
        log.error("could not write a run's outcome", { run_id: runId, error: String(error) });
        return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

async function writeEnd(
  { db, bus, storage }: { db: Database; bus: Bus; storage: RunStorage },
  runId: string,
  { outcome, durationMs, streamed, ranBy }: RunEnd,
): Promise<WrittenEnd | undefined> {
  const failed = outcome.status === "failed";
  const kept = storable(streamed);
  const output = failed ? kept : ((outcome.output ?? null) as JsonValue);
  const stored = storedOutput(output, storage.outputStoreBytes);
  // Before the end is announced, so that whoever answers the run has it all by then.
  if (stored.truncated) announceWholeOutput(bus, runId, JSON.stringify(output));
  const failure = failed ? storable(outcome.failure) : null;
  const facts: ReceiptFacts = { ...ranBy, output_sha256: sha256Json(output) };
  const written = {
    output: stored.output,
    outputSha256: stored.sha256,
    outputTruncated: stored.truncated,
    durationMs: Math.round(durationMs),
  };
  return db.transaction(async (tx) => {
    const [finished] = await tx
      .update(runs)
      .set({
        ...endedRunColumns(outcome.status, failure, !failed || kept !== ""),
        ...written,
        receiptFacts: sql`coalesce(${runs.receiptFacts}, '{}'::jsonb) || ${JSON.stringify(facts)}::jsonb`,
      })
      .where(and(eq(runs.id, runId), eq(runs.status, COMPLETE.from)))
      .returning({
        onChainListingId: runs.onChainListingId,
        charge: runs.charge,
        costWei: runs.costWei,
        reservedWei: runs.reservedWei,
      });
    if (!finished) return undefined;
    const { onChainListingId, charge } = finished;
    const answer = { ...finished, ...written, id: runId, status: outcome.status, failure };
    // The slot it frees goes to a waiting run in the same transaction.
    const granted = await queueWaitingRuns(tx, onChainListingId);
    return { onChainListingId, charge, answer, granted };
  });
}

/** Postgres stores neither a NUL character nor a lone surrogate; a failed run's text keeps the rest. */
const storable = (text: string) => text.toWellFormed().replaceAll("\u0000", "");

/** Postgres class 22: the value itself is wrong (say, a lone surrogate), not the connection. */
function isDataException(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return [code, cause?.code].some((value) => typeof value === "string" && value.startsWith("22"));
}
