import type { Bus } from "../bus/bus.ts";
import { encodeNotice, type RunNotice, runTopic, SETTLEMENT_TOPIC } from "./notices.ts";

/**
 * The one way a change of runs is announced: whoever waits on one of them (the API answering it)
 * reads its row again, and with `settle` the settlement leader wakes for the debits and logs they
 * now await. A notice that cannot go out is dropped: waiters also read the rows on a timer.
 */
export function announceChanged(bus: Bus, runIds: Iterable<string>, settle = false): void {
  for (const runId of runIds) send(bus, runTopic(runId), { kind: "changed" });
  if (settle) send(bus, SETTLEMENT_TOPIC, { kind: "changed" });
}

/** Output of a running run as its agent produced it, `at` characters into the output. */
export function announceDelta(bus: Bus, runId: string, delta: string, at: number): void {
  send(bus, runTopic(runId), { kind: "delta", delta, at });
}

function send(bus: Bus, topic: string, notice: RunNotice): void {
  try {
    bus.notify(topic, encodeNotice(notice));
  } catch {
    // A closed or reconnecting connection: the notice is lost, never the run.
  }
}
