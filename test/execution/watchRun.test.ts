// What the API makes of a run's notices while it waits for the run's answer: a per-task run's answer
// comes whole from its end's notice and its debit's, with no read of its row (there is none here to
// read), and a debit's notice alone makes no answer.
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { watchRun } from "../../api/execution/watchRun.ts";
import { createInProcessBus } from "../../lib/bus/inProcessBus.ts";
import { encodeNotice, type RunAnswer, runTopic } from "../../lib/runLedger/notices.ts";
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

it("answers a per-task run from its end's notice and its debit's", async () => {
  const bus = createInProcessBus();
  const runId = randomUUID();
  const watch = watchRun({ db: stack().db, bus }, runId);
  watch.admitted("running");
  const answered = watch.until("answered", { deadline: Date.now() + 10_000 });
  const end = endAwaitingDebit(runId);
  bus.notify(runTopic(runId), encodeNotice({ kind: "changed", ...end, answer: end }));
  bus.notify(runTopic(runId), encodeNotice({ kind: "changed", charge: "debited", costWei: "900" }));
  expect(await answered).toEqual({ ...end, charge: "debited", costWei: "900" });
  await watch.stop();
});

it("makes no answer of a debit's notice whose end it never heard", async () => {
  const bus = createInProcessBus();
  const runId = randomUUID();
  const watch = watchRun({ db: stack().db, bus }, runId);
  watch.admitted("running");
  const answered = watch.until("answered", { deadline: Date.now() + 1_000 });
  bus.notify(runTopic(runId), encodeNotice({ kind: "changed", charge: "debited", costWei: "900" }));
  expect(await answered).toBeUndefined();
  await watch.stop();
});
