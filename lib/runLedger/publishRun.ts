import { SpanKind } from "@opentelemetry/api";
import type { Bus } from "../bus/bus.ts";
import { contextOfTraceParent, inSpan, traceHeaders } from "../tracing/spans.ts";

export const RUN_SUBJECT = "runs.execute";

/** A run to hand to the workers, and the trace it continues (`runs.trace_parent`). */
export type RunToPublish = { id: string; traceParent: string | null };

/**
 * Hands a `queued` run to the workers (message id = run id, so a repeat within the bus's dedupe
 * window is dropped), in a span of the trace that admitted it, whose W3C headers the message carries
 * for the worker to continue. A publish lost on the way is repaired by the sweeper, which republishes
 * runs queued for too long.
 */
export async function publishRun(bus: Bus, run: RunToPublish): Promise<void> {
  await inSpan(
    `${RUN_SUBJECT} publish`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        "messaging.system": "nats",
        "messaging.destination.name": RUN_SUBJECT,
        "marketplace.run_id": run.id,
      },
    },
    () => bus.publish(RUN_SUBJECT, run.id, new TextEncoder().encode(run.id), traceHeaders()),
    contextOfTraceParent(run.traceParent),
  );
}
