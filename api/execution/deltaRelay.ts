import type { OnDelta } from "./watchRun.ts";

/**
 * A run's output deltas as every protocol relays them: in order, never one twice, and nothing past
 * a delta whose notice was lost (what follows would not spell the output; the answer at the end has
 * the whole of it). Deltas heard before `start` are held and relayed then; none after `stop`.
 */
export function deltaRelay() {
  let send: ((delta: string) => void) | undefined;
  let stopped = false;
  const early: Parameters<OnDelta>[] = [];
  let streamed = "";
  let missed = false;

  const relay: OnDelta = (delta, at) => {
    if (at !== undefined && at > streamed.length) missed = true;
    if (missed || (at !== undefined && at < streamed.length) || delta === "") return;
    streamed += delta;
    send?.(delta);
  };

  return {
    /** For the run's watch: each delta as it is heard. */
    onDelta: ((delta, at) => {
      if (stopped) return;
      if (send) relay(delta, at);
      else early.push([delta, at]);
    }) satisfies OnDelta,
    /** Relays the deltas held so far to `to`, then each as it comes. */
    start(to: (delta: string) => void) {
      send = to;
      for (const [delta, at] of early.splice(0)) relay(delta, at);
    },
    stop() {
      stopped = true;
      early.length = 0;
    },
    /** The output relayed so far: a start of the run's whole output. */
    streamed: () => streamed,
  };
}
