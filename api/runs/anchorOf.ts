import { and, eq } from "drizzle-orm";
import type { Hex } from "viem";
import { anchors } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import type { AnchorPlace } from "../../lib/receipts/receiptDocument.ts";

/** Where the chain holds the anchor `root`; undefined while it is pending. */
export async function anchorOf(db: Database, root: string): Promise<AnchorPlace | undefined> {
  const [anchor] = await db
    .select({ tx: anchors.tx, block: anchors.block })
    .from(anchors)
    .where(and(eq(anchors.root, root), eq(anchors.status, "anchored")));
  if (!anchor?.tx || anchor.block === null) return undefined;
  return { root: root as Hex, tx: anchor.tx as Hex, block: anchor.block };
}
