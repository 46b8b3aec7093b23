import { createMiddleware } from "hono/factory";
import { metricsOn } from "../../lib/metrics/metricsOn.ts";
import { tracingOn } from "../../lib/tracing/spans.ts";
import { setResponseHeader, setResponseHeaders } from "../http/responseHeader.ts";
import type { ApiDeps, AppEnv } from "../process/context.ts";
import { logAccess } from "./accessLog.ts";
import { CROSS_ORIGIN_HEADERS, preflightAnswer } from "./crossOrigin.ts";
import { newRequestId } from "./requestId.ts";
import { observeRequest } from "./requestMetrics.ts";
import { inRequestSpan } from "./requestSpan.ts";
import { securityHeaders } from "./securityHeaders.ts";

/**
 * What every answer gets whatever its route, in one step: the security and cross-origin headers, set
 * before the route so that they ride on the response it builds (reaching for the response afterwards
 * would make the server adapter rebuild it as a full web Response); a preflight's answer, before
 * anything asks who is calling; a request id; and once answered, the access line and, while they
 * are counted, the metrics. While tracing is on, the route runs in the request's span.
 */
export function everyAnswer(deps: ApiDeps) {
  const headers = [
    ...securityHeaders({ live: deps.settings.network === "live" }),
    ...CROSS_ORIGIN_HEADERS,
  ];
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set("deps", deps);
    setResponseHeaders(c, headers);
    if (c.req.method === "OPTIONS") return preflightAnswer(c);
    const started = performance.now();
    const requestId = newRequestId();
    c.set("requestId", requestId);
    setResponseHeader(c, "X-Request-Id", requestId);
    await (tracingOn() ? inRequestSpan(c, next) : next());
    logAccess(c, started);
    if (metricsOn()) observeRequest(c, started);
  });
}
