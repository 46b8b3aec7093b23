// The marketplace's spans. Their attributes are ids, statuses, route templates, counts and gas:
// never a secret, a prompt, an input, an output, a key, a token, a signature or a credential.
import {
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  type SpanOptions,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

let on = false;
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export function markTracingOn(): void {
  on = true;
}

export const tracingOn = (): boolean => on;

/**
 * Runs `work` in a span named `name`, child of `parent` (by default the active context), ended when
 * it settles; a throw marks it failed, with no message (a message may quote what it failed on).
 * With tracing off, `work` runs at once with a span that records nothing.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions & { kind: SpanKind },
  work: (span: Span) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  if (!on) return work(NO_SPAN);
  return trace.getTracer("marketplace").startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends; with tracing off, one that records nothing. */
export function startSpan(
  name: string,
  options: SpanOptions & { kind: SpanKind },
  parent: Context,
): Span {
  return on ? trace.getTracer("marketplace").startSpan(name, options, parent) : NO_SPAN;
}

/** The W3C headers (`traceparent`, `tracestate`) of the active context; none with tracing off. */
export function traceHeaders(): Record<string, string> | undefined {
  if (!on) return undefined;
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return headers;
}

/** The active span's `traceparent`, to store; undefined with tracing off. */
export function currentTraceParent(): string | undefined {
  return traceHeaders()?.traceparent;
}

/** The context W3C headers carry (a bus message's, a stored `traceparent`); the root without them. */
export function contextFrom(headers: Record<string, string> | undefined): Context {
  return on && headers ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
}

/** `contextFrom` of a stored `traceparent`. */
export function contextOfTraceParent(traceParent: string | null | undefined): Context {
  return contextFrom(traceParent ? { traceparent: traceParent } : undefined);
}
