import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../lib/db/projections.ts";

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/**
 * One step of the follower of projections named `name`, in one transaction with the row of its
 * position locked: `step` enqueues what lies past the position and answers the position it reached,
 * written in the same transaction, so each event is enqueued once whatever crashes. A follower
 * another process holds now is skipped (`skip locked`). The first step ever starts from `initial`.
 * Answers how many deliveries were enqueued.
 */
export async function followFeed(
  db: Database,
  name: string,
  initial: SQL,
  step: (tx: Transaction, position: string) => Promise<{ position: string; enqueued: number }>,
): Promise<number> {
  return db.transaction(async (tx) => {
    const [held] = await tx.execute<{ position: string }>(sql`
      select position from app.webhook_feeds where name = ${name} for update skip locked`);
    const [created] = held
      ? []
      : await tx.execute<{ position: string }>(sql`
          insert into app.webhook_feeds (name, position) values (${name}, ${initial})
          on conflict do nothing returning position`);
    const position = held?.position ?? created?.position;
    if (position === undefined) return 0;
    const reached = await step(tx, position);
    if (reached.position !== position) {
      await tx.execute(sql`
        update app.webhook_feeds set position = ${reached.position}, updated_at = now()
        where name = ${name}`);
    }
    return reached.enqueued;
  });
}

export type { Transaction };
