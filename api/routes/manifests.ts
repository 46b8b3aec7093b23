import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { manifests } from "../../lib/db/appSchema.ts";
import { isContentId } from "../../lib/ids/contentId.ts";
import type { AppEnv } from "../context.ts";
import { ApiError } from "../errors.ts";

export const manifestRoutes = new Hono<AppEnv>();

/** The bytes behind `ipfs://<cid>`: a registered agent's public manifest, immutable. */
manifestRoutes.get("/:cid", async (c) => {
  if (!isContentId(c.req.param("cid"))) {
    throw new ApiError("not_found", "No manifest has this content id");
  }
  const [manifest] = await c
    .get("deps")
    .db.select({ content: manifests.content })
    .from(manifests)
    .where(eq(manifests.cid, c.req.param("cid")));
  if (!manifest) throw new ApiError("not_found", "No manifest has this content id");
  c.header("Cache-Control", "public, max-age=31536000, immutable");
  return c.body(new Uint8Array(manifest.content), 200, { "Content-Type": "application/json" });
});
