import type { BusMessage } from "../../lib/bus/bus.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { renewLeases } from "../../lib/runLedger/takeRun.ts";

type HeldRun = {
  /** The command that brought the run: kept from redelivery while the run goes on. */
  message: BusMessage;
  /** The run is no longer this worker's (the sweeper ended it): stop running it. */
  onLost: () => void;
};

export type RunLeases = {
  hold: (runId: string, run: HeldRun) => void;
  release: (runId: string) => void;
  stop: () => Promise<void>;
};

/**
 * Renews the leases of every run this worker holds, in one statement every third of `leaseMs`, and
 * keeps their commands from being redelivered. A run whose lease could not be renewed because it is
 * no longer `running` was ended by the sweeper: its holder is told to let it go.
 */
export function keepRunLeases({
  db,
  leaseMs,
  log,
}: {
  db: Database;
  leaseMs: number;
  log: Logger;
}): RunLeases {
  const held = new Map<string, HeldRun>();
  let renewing: Promise<void> | undefined;

  async function renew() {
    const ids = [...held.keys()];
    if (ids.length === 0) return;
    for (const run of held.values()) run.message.working().catch(() => {});
    try {
      const ours = await renewLeases(db, ids, leaseMs);
      for (const id of ids) if (!ours.has(id)) held.get(id)?.onLost();
    } catch (error) {
      // The next tick tries again; a lease that lapses meanwhile is the sweeper's to end.
      log.warn("could not renew run leases", { runs: ids.length, error: String(error) });
    }
  }

  const timer = setInterval(() => {
    renewing ??= renew().finally(() => {
      renewing = undefined;
    });
  }, leaseMs / 3);

  return {
    hold: (runId, run) => held.set(runId, run),
    release: (runId) => held.delete(runId),
    stop: async () => {
      clearInterval(timer);
      await renewing;
    },
  };
}
