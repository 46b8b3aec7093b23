import type { Context } from "hono";
import { readVerifiedManifest } from "../manifests/readVerifiedManifest.ts";
import { ANY_REQUEST, AUTHENTICATED } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import { publicManifest } from "../openapi/manifestSchema.ts";
import type { AppEnv } from "../process/context.ts";

/**
 * A registered agent's public manifest by content id, its exact bytes: at `/v1/manifests/:cid` for
 * API clients, and at the gateway-style `/ipfs/:cid` for anyone, so `metadata_uri` resolves.
 */
export const manifestRoutes = new DescribedRoutes("/v1/manifests");
export const gatewayRoutes = new DescribedRoutes("/ipfs", { public: true });

async function serveManifest(c: Context<AppEnv, "/:cid">) {
  const content = await readVerifiedManifest(c.get("deps").db, c.req.param("cid"));
  return c.body(content, 200, {
    "Content-Type": "application/json",
    "Cache-Control": "public, max-age=31536000, immutable",
    ETag: `"${c.req.param("cid")}"`,
  });
}

manifestRoutes.get(
  "/:cid",
  {
    tag: "Agents",
    summary: "Get a registered agent's public manifest by content id",
    security: "bearer",
    scope: "read",
    pathParameters: { cid: "The manifest's content id (CIDv1)" },
    answer: { status: 200, description: "The manifest's exact bytes", schema: publicManifest },
    errors: ["not_found", ...AUTHENTICATED],
  },
  serveManifest,
);
gatewayRoutes.get(
  "/:cid",
  {
    tag: "Agents",
    summary: "Get a public manifest by content id, as an IPFS gateway does",
    description: "Served only when its bytes still hash to the id; `metadata_uri` resolves here.",
    security: "none",
    pathParameters: { cid: "The manifest's content id (CIDv1)" },
    answer: { status: 200, description: "The manifest's exact bytes", schema: publicManifest },
    errors: ["not_found", ...ANY_REQUEST],
  },
  serveManifest,
);
