// Other processes read the projections through the stable views schema with drizzle, and analysts
// through Ponder's GraphQL and SQL-over-HTTP endpoints. The views must survive a re-index.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient, desc, eq } from "@ponder/client";
import { sql } from "drizzle-orm";
import { type Hex, parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { THIRTY_DAYS } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import type { RentalModel } from "../../lib/marketplace/vocabulary.ts";
import { createListing } from "../support/marketplaceTransactions.ts";
import { batchTransactions } from "../support/transactionBatches.ts";
import { useStack } from "../support/useStack.ts";

const readerScript = fileURLToPath(new URL("./readProjections.script.ts", import.meta.url));
const VIEWS_SCHEMA = "marketplace";

const [alice, bob] = [devAccount(2), devAccount(3)];
const [renterA, renterB, renterC, renterD] = [
  devAccount(5),
  devAccount(6),
  devAccount(7),
  devAccount(8),
];

type Offer = { id: Hex; rentalModel: RentalModel; price: bigint };

const stack = useStack({ chain: true, postgres: true, ponder: true });
const marketplace = () => stack().marketplace;
let translator: Offer;
let researcher: Offer;
let summarizer: Offer;
let coder: Offer;
let retired: Offer;

/** Lists an agent, sending `createListing` through `send`. */
async function list(
  send: (transaction: Promise<Hex>) => Promise<unknown>,
  creator: HDAccount,
  name: string,
  rentalModel: Offer["rentalModel"],
  eth: string,
): Promise<Offer> {
  const price = parseEther(eth);
  const listing = { seedText: name, rentalModel, price };
  const { id, transaction } = createListing(marketplace(), creator, listing);
  await send(transaction);
  return { id, rentalModel, price };
}

/** The purchase that gives `renter` access to `offer` (five tasks' deposit for per-task). */
function rent(renter: HDAccount, offer: Offer): Promise<Hex> {
  const market = marketplace().as(renter).write;
  if (offer.rentalModel === "one_time") {
    return market.purchaseOneTime([offer.id], { value: offer.price });
  }
  if (offer.rentalModel === "subscription") {
    return market.purchaseSubscription([offer.id, THIRTY_DAYS], { value: offer.price });
  }
  return market.purchasePerQuery([offer.id, offer.price], { value: offer.price * 5n });
}

/** Listings as the reader script and GraphQL print them: dearest first, amounts as strings. */
function byPriceDescending(offers: Offer[]) {
  return [...offers]
    .sort((a, b) => Number(b.price - a.price))
    .map(({ id, rentalModel, price }) => ({ id, rentalModel, price: String(price) }));
}

/** What the reader script prints for these active offers and renter counts. */
function readerOutput(active: Offer[], renters: [Offer, number][]) {
  return {
    activeListings: byPriceDescending(active),
    rentersPerListing: renters
      .map(([offer, count]) => ({ id: offer.id, renters: count }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  };
}

async function runReader() {
  const { stdout } = await promisify(execFile)(process.execPath, [
    readerScript,
    stack().postgres.databaseUrl,
    VIEWS_SCHEMA,
  ]);
  return JSON.parse(stdout);
}

/** What the reader sees of the listings and rentals `beforeAll` set up. */
function setUpReaderOutput() {
  return readerOutput(
    [translator, researcher, summarizer, coder],
    [
      [translator, 2],
      [researcher, 1],
      [summarizer, 1],
      [coder, 0],
      [retired, 0],
    ],
  );
}

beforeAll(async () => {
  // One block for the whole set-up: Ponder follows a block at a time.
  const block = await batchTransactions(stack(), { perBlock: 10 });
  translator = await list(block.send, alice, "translator", "one_time", "0.03");
  researcher = await list(block.send, alice, "researcher", "subscription", "0.01");
  summarizer = await list(block.send, alice, "summarizer", "per_query", "0.002");
  retired = await list(block.send, alice, "retired", "one_time", "0.05");
  coder = await list(block.send, bob, "coder", "subscription", "0.02");
  await block.send(marketplace().as(alice).write.setListingActive([retired.id, false]));
  await block.send(rent(renterA, translator));
  await block.send(rent(renterB, translator));
  await block.send(rent(renterA, researcher));
  await block.send(rent(renterC, summarizer));
  await stack().ponder.waitForBlock(await block.end());
});

describe("reading the projections", () => {
  it("a separate process reads them through the views schema with drizzle", async () => {
    expect(await runReader()).toEqual(setUpReaderOutput());
  });

  it("GraphQL answers listing queries with filters and ordering", async () => {
    const query = `{
      listings(where: { status: active }, orderBy: "price", orderDirection: "desc") {
        items { id rentalModel price }
        totalCount
      }
    }`;
    const response = await fetch(`${stack().ponder.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query }),
    });
    expect(await response.json()).toEqual({
      data: {
        listings: {
          items: byPriceDescending([translator, researcher, summarizer, coder]),
          totalCount: 4,
        },
      },
    });

    // A browser opening the endpoint gets the GraphiQL explorer.
    const explorer = await fetch(`${stack().ponder.url}/graphql`);
    expect(explorer.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await explorer.text()).toContain("graphiql");
  });

  it("SQL over HTTP answers drizzle queries through @ponder/client", async () => {
    // The stack's drizzle handle points ponder.schema.ts's tables at the views schema, and Ponder's
    // SQL endpoint refuses qualified names: the client gets tables of a fresh copy of the module.
    vi.resetModules();
    const schema = await import("../../ponder.schema.ts");
    const client = createClient(`${stack().ponder.url}/sql`, { schema });
    const active = await client.db
      .select({ id: schema.listing.id, creator: schema.listing.creator })
      .from(schema.listing)
      .where(eq(schema.listing.status, "active"))
      .orderBy(desc(schema.listing.price));
    const creatorOf = (account: HDAccount) => account.address.toLowerCase();
    expect(active).toEqual([
      { id: translator.id, creator: creatorOf(alice) },
      { id: coder.id, creator: creatorOf(bob) },
      { id: researcher.id, creator: creatorOf(alice) },
      { id: summarizer.id, creator: creatorOf(alice) },
    ]);

    const [summarizerCredential] = await client.db
      .select()
      .from(schema.credential)
      .where(eq(schema.credential.listingId, summarizer.id));
    expect(summarizerCredential).toMatchObject({
      buyer: creatorOf(renterC),
      balance: summarizer.price * 5n,
      expiresAt: null,
    });
  });

  it("readers keep working, unchanged, when a re-index takes over the views schema", async () => {
    const first = stack().ponder;

    // Blue/green: the second Ponder backfills into a schema of its own while the first keeps the
    // views fed, and points the views at its schema once it is ready.
    const second = await stack().startIndexer({ viewsSchema: VIEWS_SCHEMA });
    expect(second.schema).not.toBe(first.schema);
    expect(await viewSource("listing")).toContain(`${second.schema}.listing`);
    expect(await runReader()).toEqual(setUpReaderOutput());

    // Only now may the first go: stopped earlier, readers would see its frozen rows until the
    // second was ready. Whatever changes from here on can only reach the views through the second.
    await first.stop();
    await marketplace().mined(marketplace().as(alice).write.setListingActive([retired.id, true]));
    const receipt = await marketplace().mined(rent(renterD, translator));
    await second.waitForBlock(receipt.blockNumber);

    expect(await runReader()).toEqual(
      readerOutput(
        [retired, translator, researcher, summarizer, coder],
        [
          [translator, 3],
          [researcher, 1],
          [summarizer, 1],
          [coder, 0],
          [retired, 0],
        ],
      ),
    );
  });
});

/** The query behind a view in the views schema, naming the deployment schema it reads. */
async function viewSource(view: string): Promise<string> {
  const [row] = await stack().db.execute<{ view_definition: string }>(sql`
    select view_definition from information_schema.views
    where table_schema = ${VIEWS_SCHEMA} and table_name = ${view}`);
  return String(row?.view_definition);
}
