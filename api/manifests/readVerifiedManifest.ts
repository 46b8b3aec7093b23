import { eq } from "drizzle-orm";
import { manifests } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { contentId, isContentId } from "../../lib/ids/contentId.ts";
import { ApiError } from "../http/errors.ts";

/**
 * The bytes behind `ipfs://<cid>`, checked against the id before they are served: a stored copy that
 * no longer hashes to its id (altered at rest) is an error, never an answer.
 */
export async function readVerifiedManifest(
  db: Database,
  cid: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const notFound = new ApiError("not_found", "No manifest has this content id");
  if (!isContentId(cid)) throw notFound;
  const [row] = await db
    .select({ content: manifests.content })
    .from(manifests)
    .where(eq(manifests.cid, cid));
  if (!row) throw notFound;
  const content = new Uint8Array(row.content);
  if (contentId(content) !== cid) {
    throw new ApiError("internal_error", "The stored copy of this manifest does not match its id");
  }
  return content;
}
