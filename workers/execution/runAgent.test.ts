import { describe, expect, it } from "vitest";
import { createLogger } from "../../lib/log.ts";
import {
  RUN_INTERNAL_ERROR,
  RUN_INTERRUPTED,
  runTimedOut,
} from "../../lib/runLedger/runFailures.ts";
import { type AgentRun, runAgent } from "./runAgent.ts";
import type { RunContext, Runtime } from "./runtime.ts";

function run(runtime: Runtime, extra: Partial<AgentRun> = {}) {
  const deltas: string[] = [];
  const logs: string[] = [];
  const outcome = runAgent({
    runId: "run_1",
    onChainListingId: "0xlisting",
    agent: undefined,
    request: { task: "review", input: { diff: "+x" }, timeoutSeconds: 1 },
    runtimeFor: () => runtime,
    onDelta: (delta) => deltas.push(delta),
    interrupt: new AbortController().signal,
    log: createLogger("worker", (line) => logs.push(line)),
    ...extra,
  });
  return { outcome, deltas, logs };
}

describe("runAgent", () => {
  it("hands the runtime the run and passes on its deltas and outcome", async () => {
    let seen: RunContext | undefined;
    const { outcome, deltas } = run(async (context) => {
      seen = context;
      context.onDelta("looks ");
      context.onDelta("good");
      return { status: "completed", output: "looks good" };
    });
    expect(await outcome).toEqual({ status: "completed", output: "looks good" });
    expect(deltas).toEqual(["looks ", "good"]);
    expect(seen).toMatchObject({
      runId: "run_1",
      listingId: "0xlisting",
      task: "review",
      input: { diff: "+x" },
    });
    expect(seen?.deadline).toBeGreaterThan(Date.now());
  });

  it("fails at the deadline with what was streamed, aborts the runtime and ignores its late answer", async () => {
    let signal: AbortSignal | undefined;
    let answerLate = (_: string) => {};
    const { outcome, deltas } = run(
      (context) =>
        new Promise((resolve) => {
          signal = context.signal;
          context.onDelta("part");
          answerLate = (delta) => {
            context.onDelta(delta);
            resolve({ status: "completed", output: "too late" });
          };
        }),
    );
    const started = Date.now();
    expect(await outcome).toEqual({ status: "failed", output: "part", failure: runTimedOut(1) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(signal?.aborted).toBe(true);
    answerLate("ignored");
    expect(deltas).toEqual(["part"]);
  });

  it("fails as timed out an answer that came past the deadline, before the worker's timer ran", async () => {
    const { outcome } = run(async (context) => {
      // Busy past the deadline, so the answer is there before any timer can fire.
      while (Date.now() <= context.deadline);
      context.onDelta("whole");
      return { status: "completed", output: "whole" };
    });
    expect(await outcome).toEqual({ status: "failed", output: "whole", failure: runTimedOut(1) });
  });

  it("fails a run whose runtime throws as an internal error, logging why", async () => {
    const { outcome, logs } = run(async (context) => {
      context.onDelta("half");
      throw new Error("connect ECONNREFUSED");
    });
    expect(await outcome).toEqual({
      status: "failed",
      output: "half",
      failure: RUN_INTERNAL_ERROR,
    });
    expect(logs.join("")).toContain("ECONNREFUSED");
  });

  it("fails a run whose runtime cannot be had as an internal error", async () => {
    const { outcome } = run(async () => ({ status: "completed", output: "" }), {
      runtimeFor: () => {
        throw new Error("sealed under another key");
      },
    });
    expect(await outcome).toMatchObject({ status: "failed", failure: RUN_INTERNAL_ERROR });
  });

  it("fails an interrupted run at once", async () => {
    const interrupt = new AbortController();
    const { outcome } = run(() => new Promise(() => {}), { interrupt: interrupt.signal });
    interrupt.abort();
    expect(await outcome).toEqual({ status: "failed", output: "", failure: RUN_INTERRUPTED });
  });

  it("fails an outcome that breaks the runtime contract, and caps a failure's length", async () => {
    const broken = run(async () => ({ status: "done" }) as never);
    expect(await broken.outcome).toMatchObject({ failure: RUN_INTERNAL_ERROR });
    const wordy = run(async () => ({ status: "failed", output: "", failure: "x".repeat(10_000) }));
    expect(((await wordy.outcome) as { failure: string }).failure).toHaveLength(500);
  });
});
