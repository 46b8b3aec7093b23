import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { healthRoutes } from "../lib/health/healthRoutes.ts";
import { serveDashboard } from "./dashboard/serveDashboard.ts";
import { ApiError, errorResponse } from "./http/errors.ts";
import { dependencyError, unavailableDependency } from "./http/unavailableDependency.ts";
import { indexerFreshness } from "./indexer/indexerFreshness.ts";
import { describeBytes, MAX_BODY_BYTES } from "./limits.ts";
import { loggedPath } from "./middleware/accessLog.ts";
import { admission } from "./middleware/admission.ts";
import { everyAnswer } from "./middleware/everyAnswer.ts";
import { requireIdentity } from "./middleware/identify.ts";
import type { ApiDeps, AppEnv } from "./process/context.ts";
import { authRoutes } from "./routes/auth.ts";
import { routeGroups } from "./routes/routeGroups.ts";

/** Challenges and tokens: the one place a caller without a token may go. */
const SIGN_IN_PATH = authRoutes.prefix;
const BODYLESS_METHODS = new Set(["GET", "HEAD"]);
/** One error for every unknown path: building an Error (and its stack) per request costs. */
const NO_SUCH_ENDPOINT = new ApiError("not_found", "No such endpoint");

/** The REST API over `deps`: tests call `app.request()`, production serves it over HTTP. */
export function createApp(deps: ApiDeps) {
  const app = new Hono<AppEnv>();

  const dashboard = deps.dashboard && serveDashboard(deps.dashboard);
  // First, so that no middleware runs for them: no credential, no budget, no access line per probe.
  if (deps.readiness) app.route("/", healthRoutes(deps.readiness));
  app.use(everyAnswer(deps));
  app.use(
    admission({
      dashboardFile: dashboard?.file,
      signInPath: SIGN_IN_PATH,
      trustProxy: deps.settings.trustProxy,
    }),
  );
  // No request body is ever larger than a manifest: refuse more without reading it all. The
  // connection is closed, since the unread rest of the body would otherwise follow on it.
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => {
      c.header("Connection", "close");
      const message = `Request bodies are limited to ${describeBytes(MAX_BODY_BYTES)}`;
      return errorResponse(c, new ApiError("payload_too_large", message));
    },
  });
  // A GET or HEAD request has no body here (the server never gives it one), and asking would build
  // a whole web Request for every read.
  app.use((c, next) => (BODYLESS_METHODS.has(c.req.method) ? next() : limitBody(c, next)));

  const groups = routeGroups();
  // Obtaining a token, reading how to and finding where to pay is all a caller without one may do.
  for (const group of groups.filter((each) => each.options.public)) {
    app.route(group.prefix, group.routes);
  }
  app.use("/v1/*", requireIdentity);
  app.use("/mcp", requireIdentity);
  for (const readsProjections of ["/v1/listings/*", "/v1/credentials/*", "/v1/creators/*"]) {
    app.use(readsProjections, indexerFreshness);
  }
  for (const group of groups.filter((each) => !each.options.public)) {
    app.route(group.prefix, group.routes);
  }

  app.notFound((c) => dashboard?.page(c) ?? errorResponse(c, NO_SUCH_ENDPOINT));
  app.onError((error, c) => {
    // A dependency's failure, as it came or as the 503 a route made of it.
    const cause = error instanceof ApiError ? error.cause : error;
    const dependency = unavailableDependency(cause);
    if (dependency) {
      // The cause's code or name only: a chain error's message quotes the request, signatures and all.
      const reason =
        cause instanceof Error ? ((cause as { code?: unknown }).code ?? cause.name) : "";
      deps.log.warn("dependency unavailable", {
        request_id: c.get("requestId"),
        path: loggedPath(c.req.path),
        dependency,
        reason: String(reason),
      });
    }
    if (error instanceof ApiError) return errorResponse(c, error);
    if (dependency) return errorResponse(c, dependencyError(dependency, error));
    deps.log.error("unhandled error", {
      request_id: c.get("requestId"),
      path: c.req.path,
      error: error instanceof Error ? error.message : String(error),
    });
    return errorResponse(c, new ApiError("internal_error", "Unexpected error; retry"));
  });
  return app;
}
