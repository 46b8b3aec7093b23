import { ROOT_CONTEXT, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { Context, Next } from "hono";
import { routePath } from "hono/route";
import { inSpan } from "../../lib/tracing/spans.ts";
import type { AppEnv } from "../process/context.ts";

/**
 * Answers the request in a server span named after its route template (`POST /v1/execute`), the
 * root of its trace: a caller's `traceparent` is not followed, since the public API's callers are
 * not the operator's to trust with its traces' ids and sampling.
 */
export function inRequestSpan(c: Context<AppEnv>, next: Next): Promise<void> {
  const method = c.req.method;
  const attributes = { "http.request.method": method };
  return inSpan(
    method,
    { kind: SpanKind.SERVER, attributes },
    async (span) => {
      await next();
      const route = routePath(c, -1);
      span.updateName(`${method} ${route}`);
      span.setAttributes({ "http.route": route, "http.response.status_code": c.res.status });
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    },
    ROOT_CONTEXT,
  );
}
