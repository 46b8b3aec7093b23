import type { Bus } from "../../lib/bus/bus.ts";
import { encodeNotice, type RunNotice } from "../../lib/runs/notices.ts";

/** Notifies `topic`; a notice that cannot go out is dropped, since whoever waits also reads the row. */
export function tell(bus: Bus, topic: string, notice: RunNotice): void {
  try {
    bus.notify(topic, encodeNotice(notice));
  } catch {
    // A closed or reconnecting connection: the notice is lost, never the run.
  }
}
