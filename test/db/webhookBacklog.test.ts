// The bound on what one webhook endpoint may hold (app.enqueue_webhook, migration 0019): an endpoint
// that cannot take deliveries (down, or slow on purpose) never makes Postgres hold more than 10,000
// of its deliveries unsettled; each event it misses past that is counted where its owner reads it,
// and a settled delivery makes room again. Other endpoints of the same wallet are not held back.
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ chain: false, postgres: true });
const WALLET = "0x00000000000000000000000000000000000000aa";
const BOUND = 10_000;

async function enqueue(key: string): Promise<number> {
  const [row] = await stack().db.execute<{ enqueued: number }>(
    sql`select app.enqueue_webhook(${WALLET}, 'run.completed', ${key}, null, null) as enqueued`,
  );
  return Number(row?.enqueued);
}

async function dropped(): Promise<Record<string, number>> {
  const rows = await stack().db.execute<{ id: string; dropped_events: number }>(
    sql`select id, dropped_events from app.webhook_endpoints where wallet = ${WALLET} order by id`,
  );
  return Object.fromEntries(rows.map((row) => [row.id, row.dropped_events]));
}

it("holds at most 10,000 unsettled deliveries per endpoint and counts each event past them", async () => {
  await stack().db.execute(sql`
    insert into app.webhook_endpoints (id, wallet, url, events, secret, sealing_key_id) values
      ('whk_full', ${WALLET}, 'https://full.example', '{run.completed}', '\\x00', 'key'),
      ('whk_room', ${WALLET}, 'https://room.example', '{run.completed}', '\\x00', 'key')`);
  await stack().db.execute(sql`
    insert into app.webhook_deliveries (endpoint_id, type, event_key)
    select 'whk_full', 'run.completed', 'earlier:' || n from generate_series(1, ${BOUND - 1}) n`);

  // One place left: taken, by both endpoints.
  expect(await enqueue("last-place")).toBe(2);
  expect(await dropped()).toEqual({ whk_full: 0, whk_room: 0 });

  // Full: the other endpoint still gets each event, the full one counts what it missed.
  expect(await enqueue("past-1")).toBe(1);
  expect(await enqueue("past-2")).toBe(1);
  expect(await dropped()).toEqual({ whk_full: 2, whk_room: 0 });
  const [held] = await stack().db.execute<{ count: number }>(sql`
    select count(*)::int as count from app.webhook_deliveries
    where endpoint_id = 'whk_full' and status in ('pending', 'sending')`);
  expect(held?.count).toBe(BOUND);

  // A delivery settled makes room for the next event.
  await stack().db.execute(sql`
    update app.webhook_deliveries set status = 'delivered', delivered_at = now()
    where endpoint_id = 'whk_full' and event_key = 'earlier:1'`);
  expect(await enqueue("after-room")).toBe(2);
  expect(await dropped()).toEqual({ whk_full: 2, whk_room: 0 });
});
