import { Hono } from "hono";
import type { AppEnv } from "../context.ts";
import { readVerifiedManifest } from "../manifests/readVerifiedManifest.ts";

/**
 * A registered agent's public manifest by content id, its exact bytes: at `/v1/manifests/:cid` for
 * API clients, and at the gateway-style `/ipfs/:cid` for anyone, so `metadata_uri` resolves.
 */
export const manifestRoutes = new Hono<AppEnv>();

manifestRoutes.get("/:cid", async (c) => {
  const content = await readVerifiedManifest(c.get("deps").db, c.req.param("cid"));
  return c.body(content, 200, {
    "Content-Type": "application/json",
    "Cache-Control": "public, max-age=31536000, immutable",
    ETag: `"${c.req.param("cid")}"`,
  });
});
