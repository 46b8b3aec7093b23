// A process that grants one listing's slots over and over, from four concurrent loops, until the
// listing has no waiting run left; then prints what it granted and published as one JSON line.
// Env: DATABASE_URL, LISTING.
import { and, count, eq } from "drizzle-orm";
import { createInProcessBus } from "../../lib/bus/inProcessBus.ts";
import { runs } from "../../lib/db/appSchema.ts";
import { connectProjections } from "../../lib/db/projections.ts";
import { grantSlots } from "../../lib/runLedger/grantSlots.ts";
import { RUN_SUBJECT } from "../../lib/runLedger/publishRun.ts";

const { DATABASE_URL: databaseUrl, LISTING: listing } = process.env;
if (!databaseUrl || !listing) throw new Error("DATABASE_URL and LISTING are required");
const { db, close } = connectProjections(databaseUrl);
const bus = createInProcessBus();
const granted: string[] = [];
const published: string[] = [];
await bus.consume(
  RUN_SUBJECT,
  { group: "recorder", ackWaitMs: 60_000, maxDeliver: 1, concurrency: 1_000 },
  async (message) => {
    published.push(message.id);
    await message.ack();
  },
);

async function waitingLeft(): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(runs)
    .where(and(eq(runs.onChainListingId, listing as string), eq(runs.status, "waiting")));
  return row?.n ?? 0;
}

async function grantUntilNoneWait() {
  do granted.push(...(await grantSlots({ db, bus }, listing as string)));
  while ((await waitingLeft()) > 0);
}

await Promise.all(Array.from({ length: 4 }, grantUntilNoneWait));
await new Promise((resolve) => setTimeout(resolve, 50));
process.stdout.write(`${JSON.stringify({ granted, published })}\n`);
await bus.close();
await close();
