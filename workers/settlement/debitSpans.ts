import { type Attributes, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { contextOfTraceParent, startSpan } from "../../lib/tracing/spans.ts";

/**
 * A span per run of a debit batch, each in the trace its run's admission began (docs/decisions.md,
 * "Settlement in traces"): one transaction settles many runs, and each run's trace shows its own.
 * Their attributes are the batch's: its size, then its transaction, gas and outcome.
 */
export function startDebitSpans(batch: { id: string; traceParent: string | null }[]) {
  const spans = batch.map((run) =>
    startSpan(
      "settlement debit",
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "marketplace.run_id": run.id,
          "marketplace.settlement.batch_runs": batch.length,
        },
      },
      contextOfTraceParent(run.traceParent),
    ),
  );
  return {
    record: (attributes: Attributes) => {
      for (const span of spans) span.setAttributes(attributes);
    },
    fail: () => {
      for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR });
    },
    end: () => {
      for (const span of spans) span.end();
    },
  };
}
