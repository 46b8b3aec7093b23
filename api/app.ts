import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { healthRoutes } from "../lib/health/healthRoutes.ts";
import type { ApiDeps, AppEnv } from "./context.ts";
import { serveDashboard } from "./dashboard/serveDashboard.ts";
import { ApiError, errorResponse } from "./errors.ts";
import { indexerFreshness } from "./indexer/indexerFreshness.ts";
import { describeBytes, MAX_BODY_BYTES } from "./limits.ts";
import { loggedPath } from "./middleware/accessLog.ts";
import { admission } from "./middleware/admission.ts";
import { everyAnswer } from "./middleware/everyAnswer.ts";
import { requireIdentity } from "./middleware/identify.ts";
import { requireScopes } from "./middleware/requireScope.ts";
import { a2aRoutes } from "./routes/a2a.ts";
import { agentRoutes } from "./routes/agents.ts";
import { apiDocRoutes } from "./routes/apiDocs.ts";
import { apiKeyRoutes } from "./routes/apiKeys.ts";
import { authRoutes } from "./routes/auth.ts";
import { creatorRoutes } from "./routes/creators.ts";
import { credentialRoutes } from "./routes/credentials.ts";
import { executeRoutes } from "./routes/execute.ts";
import { indexerRoutes } from "./routes/indexer.ts";
import { jobRoutes } from "./routes/jobs.ts";
import { listingRoutes } from "./routes/listings.ts";
import { manifestRoutes } from "./routes/manifests.ts";
import { marketplaceRoutes } from "./routes/marketplace.ts";
import { mcpRoutes } from "./routes/mcp.ts";
import { reviewRoutes } from "./routes/reviews.ts";
import { runRoutes } from "./routes/runs.ts";
import { toolRoutes } from "./routes/tools.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { dependencyError, unavailableDependency } from "./unavailableDependency.ts";

/** Challenges and tokens: the one place a caller without a token may go. */
const SIGN_IN_PATH = "/v1/auth";
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

  // Obtaining a token, reading how to and finding where to pay is all a caller without one may do.
  app.route(SIGN_IN_PATH, authRoutes);
  app.route("/", apiDocRoutes);
  app.route("/v1/marketplace", marketplaceRoutes);
  app.route("/v1/indexer", indexerRoutes);
  app.route("/ipfs", manifestRoutes);
  app.route("/a2a", a2aRoutes);
  app.use("/v1/*", requireIdentity);
  app.use("/mcp", requireIdentity);
  requireScopes(app);
  for (const readsProjections of ["/v1/listings/*", "/v1/credentials/*", "/v1/creators/*"]) {
    app.use(readsProjections, indexerFreshness);
  }
  app.route("/v1/api-keys", apiKeyRoutes);
  app.route("/v1/listings", listingRoutes);
  app.route("/v1/listings", reviewRoutes);
  app.route("/v1/credentials", credentialRoutes);
  app.route("/v1/creators", creatorRoutes());
  app.route("/v1/agents", agentRoutes);
  app.route("/v1/jobs", jobRoutes);
  app.route("/v1/manifests", manifestRoutes);
  app.route("/v1/execute", executeRoutes);
  app.route("/v1/runs", runRoutes);
  app.route("/v1/tools", toolRoutes);
  app.route("/mcp", mcpRoutes);
  app.route("/v1/webhooks", webhookRoutes);

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
