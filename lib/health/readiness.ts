import type { Logger } from "../log.ts";

/** Resolves when its dependency is ready; rejects (with a `NotReady` saying why) when it is not. */
export type ReadinessCheck = () => Promise<void>;

/** A check's own account of why it failed: safe to show, unlike a client's error message. */
export class NotReady extends Error {}

export type CheckOutcome = { status: "ok" | "failed"; ms: number; reason?: string };
export type ReadinessReport = {
  status: "ready" | "not_ready";
  checks: Record<string, CheckOutcome>;
};
export type Readiness = { report: () => Promise<ReadinessReport> };

/** How long each check may take before it counts as failed. */
export const READY_CHECK_DEADLINE_MS = 1_000;
/** A report this recent answers again: a flood of probes reaches each dependency once a second at most. */
export const READY_REPORT_CACHE_MS = 1_000;

/**
 * The checks run together, each within `READY_CHECK_DEADLINE_MS`; a report is kept for
 * `READY_REPORT_CACHE_MS` and shared by every caller meanwhile. A check still waiting from the last
 * report (its dependency frozen) is waited on again, not asked again: each has at most one call out.
 */
export function createReadiness(
  checks: Record<string, ReadinessCheck>,
  log: Logger,
  { deadlineMs = READY_CHECK_DEADLINE_MS, cacheMs = READY_REPORT_CACHE_MS } = {},
): Readiness {
  const outstanding = new Map<string, Promise<void>>();
  let last: { at: number; report: Promise<ReadinessReport> } | undefined;

  function probe(name: string, check: ReadinessCheck): Promise<void> {
    let call = outstanding.get(name);
    if (!call) {
      const started = Promise.resolve().then(check);
      call = started;
      outstanding.set(name, started);
      started
        .finally(() => {
          if (outstanding.get(name) === started) outstanding.delete(name);
        })
        .catch(() => {});
    }
    return call;
  }

  async function outcome(name: string, check: ReadinessCheck): Promise<CheckOutcome> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new NotReady(`no answer within ${deadlineMs} ms`)),
        deadlineMs,
      );
    });
    try {
      await Promise.race([probe(name, check), deadline]);
      return { status: "ok", ms: Math.round(performance.now() - started) };
    } catch (error) {
      return {
        status: "failed",
        ms: Math.round(performance.now() - started),
        reason: reasonOf(error),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async function evaluate(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      Object.entries(checks).map(
        async ([name, check]) => [name, await outcome(name, check)] as const,
      ),
    );
    const report: ReadinessReport = {
      status: entries.every(([, { status }]) => status === "ok") ? "ready" : "not_ready",
      checks: Object.fromEntries(entries),
    };
    log.debug("readiness checked", report);
    return report;
  }

  return {
    report: () => {
      if (!last || performance.now() - last.at >= cacheMs) {
        last = { at: performance.now(), report: evaluate() };
      }
      return last.report;
    },
  };
}

/**
 * Why a check failed, as far as it is safe to say: a client's error message can quote its request or
 * a URL carrying a provider's key, so only its code or name is given.
 */
function reasonOf(error: unknown): string {
  if (error instanceof NotReady) return error.message;
  if (error instanceof Error) return String((error as { code?: unknown }).code ?? error.name);
  return "failed";
}
