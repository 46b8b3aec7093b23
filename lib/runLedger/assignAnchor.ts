import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Hex } from "viem";
import type { Receipt } from "../../sdk/src/receipts/receiptTypes.ts";
import { type AnchorCount, agents, anchors, runs } from "../db/appSchema.ts";
import type { Database } from "../db/projections.ts";
import { runToSettle } from "./markRuns.ts";
import { SETTLED_CHARGES } from "./transitions.ts";

/** The oldest finished runs whose cost is final and whose receipt is in no anchor yet. */
export function runsToAnchor(db: Database, limit: number) {
  return db
    .select({
      ...runToSettle,
      costWei: runs.costWei,
      output: runs.output,
      receiptFacts: runs.receiptFacts,
      startedAt: runs.startedAt,
      finishedAt: runs.finishedAt,
      failure: runs.failure,
      logged: runs.logged,
      creator: agents.creator,
    })
    .from(runs)
    .leftJoin(agents, eq(agents.onChainListingId, runs.onChainListingId))
    .where(
      and(
        isNull(runs.anchorRoot),
        inArray(runs.status, ["completed", "failed"]),
        inArray(runs.charge, [...SETTLED_CHARGES]),
      ),
    )
    .orderBy(asc(runs.finishedAt), asc(runs.onChainRunId))
    .limit(limit);
}

export type RunToAnchor = Awaited<ReturnType<typeof runsToAnchor>>[number];

/** One run's place in an anchor: its receipt as anchored, and its leaf's Merkle proof. */
export type AnchoredReceipt = { id: string; receipt: Receipt; proof: Hex[] };

/**
 * Assigns these runs to the anchor `root` in one transaction: the anchor, `pending` with the counts
 * the chain is to add, and each run's receipt and proof, its count now the anchor's (`logged`). A run
 * assigned meanwhile, or whose charge moved, fails the whole assignment: nothing is half assigned.
 */
export async function assignAnchor(
  db: Database,
  anchor: { root: Hex; counts: AnchorCount[] },
  members: AnchoredReceipt[],
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .insert(anchors)
      .values({ root: anchor.root, counts: anchor.counts, status: "pending" });
    const assigned = await tx.execute(sql`
      update ${runs} set anchor_root = ${anchor.root}, receipt = d.receipt, anchor_proof = d.proof,
        logged = true
      from jsonb_to_recordset(${JSON.stringify(members)}::jsonb) as d(id text, receipt jsonb, proof jsonb)
      where ${runs.id} = d.id and ${runs.anchorRoot} is null
        and ${inArray(runs.charge, [...SETTLED_CHARGES])}
      returning ${runs.id}`);
    if (assigned.length !== members.length) {
      throw new Error(`anchor ${anchor.root}: ${members.length - assigned.length} runs moved on`);
    }
  });
}

/** The oldest anchor the chain may not hold yet. */
export async function pendingAnchor(db: Database) {
  const [pending] = await db
    .select()
    .from(anchors)
    .where(eq(anchors.status, "pending"))
    .orderBy(asc(anchors.createdAt))
    .limit(1);
  return pending;
}

/** Records the transaction about to carry the anchor; true, so it can stand in a send's `record`. */
export async function recordAnchorTx(db: Database, root: Hex, tx: Hex): Promise<boolean> {
  await db.update(anchors).set({ tx }).where(eq(anchors.root, root));
  return true;
}

/** The chain holds the anchor's root, since `block`, by `tx`. */
export async function markAnchored(db: Database, root: Hex, tx: Hex, block: bigint) {
  await db
    .update(anchors)
    .set({ status: "anchored", tx, block })
    .where(and(eq(anchors.root, root), eq(anchors.status, "pending")));
}
