// What the API makes of a run's notices while it waits for the run's answer: a per-task run's answer
// comes whole from its end's notice and its debit's, with no read of its row (there is none here to
// read), and a debit's notice alone makes no answer.
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { watchRun } from "../../api/execution/watchRun.ts";
import { createInProcessBus } from "../../lib/bus/inProcessBus.ts";
import {
  encodeNotice,
  type RunAnswer,
  type RunNotice,
  runTopic,
} from "../../lib/runLedger/notices.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ chain: false, postgres: true });

function endAwaitingDebit(id: string): RunAnswer {
  return {
    id,
    onChainListingId: `0x${"ab".repeat(32)}`,
    status: "completed",
    charge: "debit_pending",
    output: { findings: ["reentrancy in withdraw"] },
    failure: null,
    costWei: "0",
    reservedWei: "1000",
    durationMs: 12,
    outputTruncated: false,
    outputSha256: null,
  };
}

/** A running run watched until it is answered or `waitMs` pass, and a way to tell its notices. */
function watchedRun(waitMs: number) {
  const bus = createInProcessBus();
  const runId = randomUUID();
  const watch = watchRun({ db: stack().db, bus }, runId);
  watch.admitted("running");
  const answered = watch.until("answered", { deadline: Date.now() + waitMs });
  const tell = (notice: RunNotice) => bus.notify(runTopic(runId), encodeNotice(notice));
  return { runId, watch, answered, tell };
}

it("answers a per-task run from its end's notice and its debit's", async () => {
  const { runId, watch, answered, tell } = watchedRun(10_000);
  const end = endAwaitingDebit(runId);
  tell({ kind: "changed", ...end, answer: end });
  tell({ kind: "changed", charge: "debited", costWei: "900" });
  expect(await answered).toEqual({ ...end, charge: "debited", costWei: "900" });
  await watch.stop();
});

it("makes no answer of a debit's notice whose end it never heard", async () => {
  const { watch, answered, tell } = watchedRun(1_000);
  tell({ kind: "changed", charge: "debited", costWei: "900" });
  expect(await answered).toBeUndefined();
  await watch.stop();
});
