-- The W3C traceparent of the request that admitted a run, while tracing is on (lib/tracing/).
ALTER TABLE "app"."runs" ADD COLUMN "trace_parent" text;