import type { Database } from "../../lib/db/projections.ts";
import type { Logger } from "../../lib/log.ts";
import { MAX_LEASE, MAX_LEASE_SHARE, RECALL_POLL_MS, RECALL_WAIT_MS } from "../limits.ts";
import type { PostgresListener } from "../process/postgresListener.ts";
import {
  type Lease,
  leaseUnits,
  RECALL_CHANNEL,
  RETURNED_CHANNEL,
  returnUnits,
  windowOfSubject,
} from "./rateLimitLeases.ts";

/** Subjects whose budgets a process keeps; past this many, idle ones and past windows go. */
const MAX_BUDGETS = 10_000;

/** One request's place in its subject's window; `count > limit` means it is refused. */
export type Spending = { limit: number; count: number };

/** This process's share of one subject's window. */
type Budget = {
  subject: string;
  windowStart: number;
  /** Units leased and not spent yet. */
  unused: number;
  /** What its open block added to the window's `outstanding`; 0 with no block open. */
  open: number;
  /** The last lease's size: the next may be twice as large while this process is alone. */
  lastLeased: number;
  /** The window's `granted` as of this process's last lease; null before its first. */
  seen: number | null;
  /** Requests waiting for units. */
  waiting: number;
  leasing?: Promise<void>;
  /** The limit under which the window had no unit left for anyone: refused without asking again. */
  exhaustedUnder?: number;
};

export type LeasedBudgets = ReturnType<typeof createLeasedBudgets>;

/**
 * Rate-limit budgets shared by every API process without a database write per request: a process
 * leases units of a subject's window from Postgres and spends them locally. The sum of leases never
 * exceeds the limit, so no more than the limit is ever admitted; a process that stops being alone
 * on a subject gives its block back when recalled, so the last units go to whichever process needs
 * them. docs/decisions.md ("Rate limits across processes") has the rules and their bounds.
 */
export function createLeasedBudgets({
  db,
  listener,
  log,
}: {
  db: Database;
  listener: PostgresListener;
  log: Logger;
}) {
  const budgets = new Map<string, Budget>();
  const waitingForReturns = new Map<string, Set<() => void>>();

  const parse = (payload: string) => {
    const space = payload.indexOf(" ");
    return { windowStart: Number(payload.slice(0, space)), subject: payload.slice(space + 1) };
  };
  listener.on(RECALL_CHANNEL, (payload) => {
    const { windowStart, subject } = parse(payload);
    const budget = budgets.get(subject);
    // A lease in flight may be opening the block the recall is about.
    if (budget?.windowStart !== windowStart) return;
    if (budget.open > 0 || budget.leasing) void giveBack(budget);
  });
  listener.on(RETURNED_CHANNEL, (payload) => {
    for (const wake of waitingForReturns.get(payload) ?? []) wake();
  });
  // Unheard, a recall would leave units stranded here: none are kept while not listening.
  listener.onLost(() => {
    for (const budget of budgets.values()) if (budget.open > 0) void giveBack(budget);
  });

  const maxLease = (limit: number) => Math.max(MAX_LEASE, Math.floor(limit * MAX_LEASE_SHARE));

  function budgetOf(subject: string, windowStart: number): Budget {
    const known = budgets.get(subject);
    if (known?.windowStart === windowStart) return known;
    if (budgets.size >= MAX_BUDGETS) forgetIdle(windowStart);
    const budget: Budget = {
      subject,
      windowStart,
      unused: 0,
      open: 0,
      lastLeased: 0,
      seen: null,
      waiting: 0,
    };
    budgets.set(subject, budget);
    return budget;
  }

  function forgetIdle(currentWindow: number) {
    for (const [subject, budget] of budgets) {
      const inUse = budget.unused + budget.open + budget.waiting > 0 || budget.leasing;
      if (budget.windowStart !== currentWindow || !inUse) budgets.delete(subject);
    }
  }

  /** Leases for the requests waiting now, and a block beyond them while this process is alone or busy. */
  async function lease(budget: Budget, limit: number, leaseAhead: boolean, busy: boolean) {
    const { subject, windowStart } = budget;
    let needed = budget.waiting;
    // A block stays only with a process that would hear it recalled.
    const recallable = leaseAhead && listener.isListening();
    let granted: Lease = await leaseUnits(db, {
      subject,
      windowStart,
      limit,
      needed,
      wanted: recallable ? Math.min(maxLease(limit), Math.max(needed, 2 * budget.lastLeased)) : 0,
      seen: budget.seen,
      busy,
      closing: budget.open,
    });
    budget.open = 0;
    // The window is used up unless other processes hold units unused: they were recalled.
    const deadline = performance.now() + RECALL_WAIT_MS;
    while (granted.leased === 0 && granted.outstanding > 0 && performance.now() < deadline) {
      await returnedOrAfter(windowOfSubject(windowStart, subject), RECALL_POLL_MS);
      needed = budget.waiting;
      granted = await leaseUnits(db, {
        subject,
        windowStart,
        limit,
        needed,
        wanted: 0,
        seen: null,
        busy,
        closing: 0,
      });
    }
    budget.unused = granted.leased;
    budget.open = Math.max(0, granted.leased - needed);
    budget.lastLeased = granted.leased;
    budget.seen = granted.granted;
    budget.exhaustedUnder = granted.leased === 0 ? limit : undefined;
  }

  function returnedOrAfter(window: string, ms: number) {
    return new Promise<void>((resolve) => {
      const waiters = waitingForReturns.get(window) ?? new Set();
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0) waitingForReturns.delete(window);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
      waitingForReturns.set(window, waiters);
    });
  }

  /** Gives the open block's unused units back, once any lease in flight has settled. */
  async function giveBack(budget: Budget) {
    while (budget.leasing) await budget.leasing.catch(() => {});
    if (budget.open === 0) return;
    const { subject, windowStart, unused, open } = budget;
    budget.unused = 0;
    budget.open = 0;
    await returnUnits(db, { subject, windowStart, unused, closing: open }).catch(
      (error: unknown) => {
        // Lost for this window: fewer requests admitted, never more.
        log.warn("could not return rate-limit units", {
          subject,
          unused,
          error: error instanceof Error ? error.message : String(error),
        });
      },
    );
  }

  function spendLeased(budget: Budget, limit: number): Spending {
    budget.unused -= 1;
    return { limit, count: (budget.seen ?? 0) - budget.unused };
  }

  async function spendAfterLease(
    budget: Budget,
    limit: number,
    leaseAhead: boolean,
    busy: boolean,
  ): Promise<Spending> {
    while (budget.unused === 0) {
      // A listing's creator may raise its execution limit within the window.
      if (budget.exhaustedUnder !== undefined && limit <= budget.exhaustedUnder) {
        return { limit, count: limit + 1 };
      }
      budget.waiting += 1;
      try {
        budget.leasing ??= lease(budget, limit, leaseAhead, busy).finally(() => {
          budget.leasing = undefined;
        });
        await budget.leasing;
      } finally {
        budget.waiting -= 1;
      }
    }
    return spendLeased(budget, limit);
  }

  return {
    /**
     * Spends one unit of `subject`'s window (its start in Unix seconds) of `limit` units. Without
     * `leaseAhead`, units are leased only for the requests waiting, so every count is exact across
     * processes, at a database write per request (or per batch of requests at once). `busy` says
     * that the subject's requests overlap here (`overlappingRequests.ts`): a block may then be leased
     * beside other processes' blocks, and counts are no longer exact (docs/decisions.md). Answers at
     * once, not with a promise, when units leased ahead are left.
     */
    spend(
      subject: string,
      limit: number,
      windowStart: number,
      { leaseAhead = true, busy = false } = {},
    ): Spending | Promise<Spending> {
      const budget = budgetOf(subject, windowStart);
      // Units leased ahead are spent without a promise: most requests end here.
      if (budget.unused > 0) return spendLeased(budget, limit);
      return spendAfterLease(budget, limit, leaseAhead, busy);
    },
    /** Gives every open block back, for the other processes to spend. */
    async stop() {
      await Promise.all([...budgets.values()].filter((b) => b.open > 0).map(giveBack));
    },
  };
}
