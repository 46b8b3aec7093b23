import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { markTracingOn } from "./spans.ts";
import type { TracingEnv } from "./tracingEnv.ts";

/**
 * Traces exported over OTLP/HTTP (JSON) when an endpoint is set; unset, nothing is registered and
 * every span helper returns at once. The exporter reads the standard variables itself (headers,
 * timeout, certificates); `stop` sends what is still buffered.
 */
export function startTracing(env: TracingEnv, serviceName: string): { stop: () => Promise<void> } {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    return { stop: async () => {} };
  }
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? serviceName }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  markTracingOn();
  return { stop: () => provider.shutdown() };
}
