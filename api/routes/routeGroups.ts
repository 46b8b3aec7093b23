import type { DescribedRoutes } from "../openapi/describedRoutes.ts";
import { a2aRoutes } from "./a2a.ts";
import { agentRoutes } from "./agents.ts";
import { apiDocRoutes } from "./apiDocs.ts";
import { apiKeyRoutes } from "./apiKeys.ts";
import { authRoutes } from "./auth.ts";
import { creatorRoutes } from "./creators.ts";
import { credentialRoutes } from "./credentials.ts";
import { executeRoutes } from "./execute.ts";
import { indexerRoutes } from "./indexer.ts";
import { jobRoutes } from "./jobs.ts";
import { listingRoutes } from "./listings.ts";
import { gatewayRoutes, manifestRoutes } from "./manifests.ts";
import { marketplaceRoutes } from "./marketplace.ts";
import { mcpRoutes } from "./mcp.ts";
import { reviewRoutes } from "./reviews.ts";
import { runRoutes } from "./runs.ts";
import { toolRoutes } from "./tools.ts";
import { webhookRoutes } from "./webhooks.ts";

/**
 * Every group of routes, in the reference's order: app.ts mounts them (the public ones before the
 * API asks for an identity) and the OpenAPI document lists their operations. A new endpoint is a
 * route declared in its group; a new group is one more line here.
 */
export function routeGroups(): DescribedRoutes[] {
  return [
    authRoutes,
    apiDocRoutes,
    apiKeyRoutes,
    marketplaceRoutes,
    indexerRoutes,
    listingRoutes,
    reviewRoutes,
    credentialRoutes,
    agentRoutes,
    jobRoutes,
    manifestRoutes,
    gatewayRoutes,
    executeRoutes,
    creatorRoutes(),
    runRoutes,
    webhookRoutes,
    toolRoutes,
    mcpRoutes,
    a2aRoutes,
  ];
}
