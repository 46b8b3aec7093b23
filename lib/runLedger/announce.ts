import type { Bus } from "../bus/bus.ts";
import type { RunCharge, RunStatus } from "../db/appSchema.ts";
import type { DebitedRun } from "./markRuns.ts";
import {
  encodeNotice,
  type RunAnswer,
  type RunNotice,
  runTopic,
  SETTLEMENT_TOPIC,
} from "./notices.ts";

/** What a change wrote to every run it announces, as far as the announcer knows it. */
export type ChangedTo = { status: RunStatus; charge?: RunCharge; answer?: RunAnswer };

/**
 * The one way a change of runs is announced: whoever waits on one of them (the API answering it)
 * reads its row again, unless `to` tells it that what it waits for has not happened yet, and with
 * `settle` the settlement leader wakes for the debits and logs they now await. A notice that cannot
 * go out is dropped: waiters also read the rows on a timer.
 */
export function announceChanged(
  bus: Bus,
  runIds: Iterable<string>,
  settle = false,
  to?: ChangedTo,
): void {
  for (const runId of runIds) send(bus, runTopic(runId), { kind: "changed", ...to });
  if (settle) send(bus, SETTLEMENT_TOPIC, { kind: "changed" });
}

/** Runs the chain debited, each with what it was charged: whoever answers one needs no read. */
export function announceDebited(bus: Bus, debited: DebitedRun[]): void {
  for (const { id, costWei } of debited) {
    send(bus, runTopic(id), { kind: "changed", charge: "debited", costWei });
  }
}

/** Output of a running run as its agent produced it, `at` characters into the output. */
export function announceDelta(bus: Bus, runId: string, delta: string, at: number): void {
  send(bus, runTopic(runId), { kind: "delta", delta, at });
}

/** Characters of output a notice carries at most: its JSON stays well within a NATS message. */
const OUTPUT_PART_CHARS = 128 * 1024;

/** The whole output's JSON text, in pieces, for whoever answers a run whose row keeps a cut copy. */
export function announceWholeOutput(bus: Bus, runId: string, text: string): void {
  for (let at = 0; at < text.length; at += OUTPUT_PART_CHARS) {
    send(bus, runTopic(runId), {
      kind: "output",
      part: text.slice(at, at + OUTPUT_PART_CHARS),
      at,
    });
  }
}

function send(bus: Bus, topic: string, notice: RunNotice): void {
  try {
    bus.notify(topic, encodeNotice(notice));
  } catch {
    // A closed or reconnecting connection: the notice is lost, never the run.
  }
}
