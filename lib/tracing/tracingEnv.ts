import type { z } from "zod/v4";
import { envFields } from "../env.ts";

/** The standard OpenTelemetry variables a tracing process reads (`startTracing`). */
export const TRACING_ENV = envFields(
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_SERVICE_NAME",
  "OTEL_BSP_SCHEDULE_DELAY",
);

export type TracingEnv = z.output<z.ZodObject<typeof TRACING_ENV>>;
