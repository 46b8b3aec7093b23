// Other processes read the projections through the stable views schema with drizzle, and analysts
// through Ponder's GraphQL and SQL-over-HTTP endpoints. The views must survive a re-index.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient, desc, eq } from "@ponder/client";
import postgresClient from "postgres";
import { type Hex, parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectMarketplace,
  type MarketplaceConnection,
  METADATA_URI,
  ONE_TIME,
  PER_QUERY,
  SUBSCRIPTION,
  seedOf,
  THIRTY_DAYS,
} from "../../devStack/marketplace.ts";
import type { Anvil } from "../../devStack/startAnvil.ts";
import type { Postgres } from "../../devStack/startPostgres.ts";
import { type Deployment, deployMarketplace } from "../../lib/chain/deployMarketplace.ts";
import { devAccount, devPrivateKey } from "../../lib/chain/devAccounts.ts";
import * as schema from "../../ponder.schema.ts";
import {
  startTestAnvil,
  startTestPonder,
  startTestPostgres,
  type TestPonder,
} from "../harness/harness.ts";

const readerScript = fileURLToPath(new URL("./readProjections.script.ts", import.meta.url));
const VIEWS_SCHEMA = "marketplace";

const authority = devAccount(0);
const [alice, bob] = [devAccount(2), devAccount(3)];
const [renterA, renterB, renterC, renterD] = [
  devAccount(5),
  devAccount(6),
  devAccount(7),
  devAccount(8),
];

type Offer = { id: Hex; rentalModel: "one_time" | "subscription" | "per_query"; price: bigint };

let anvil: Anvil | undefined;
let postgres: Postgres | undefined;
/** Running Ponders, the one serving the views last. */
const ponders: TestPonder[] = [];
let deployment: Deployment;
let marketplace: MarketplaceConnection;
let translator: Offer;
let researcher: Offer;
let summarizer: Offer;
let coder: Offer;
let retired: Offer;

const MODELS = { one_time: ONE_TIME, subscription: SUBSCRIPTION, per_query: PER_QUERY };

async function list(
  creator: HDAccount,
  name: string,
  rentalModel: Offer["rentalModel"],
  eth: string,
) {
  const seed = seedOf(name);
  const price = parseEther(eth);
  const market = marketplace.as(creator);
  await marketplace.mined(
    market.write.createListing([seed, MODELS[rentalModel], price, METADATA_URI]),
  );
  return { id: await market.read.deriveListingId([creator.address, seed]), rentalModel, price };
}

async function rent(renter: HDAccount, offer: Offer) {
  const market = marketplace.as(renter).write;
  if (offer.rentalModel === "one_time") {
    return marketplace.mined(market.purchaseOneTime([offer.id], { value: offer.price }));
  }
  if (offer.rentalModel === "subscription") {
    return marketplace.mined(
      market.purchaseSubscription([offer.id, THIRTY_DAYS], { value: offer.price }),
    );
  }
  return marketplace.mined(market.purchasePerQuery([offer.id], { value: offer.price * 5n }));
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

async function runReader(databaseUrl: string) {
  const { stdout } = await promisify(execFile)(process.execPath, [
    readerScript,
    databaseUrl,
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

const currentPonder = () => ponders[ponders.length - 1] as TestPonder;

beforeAll(async () => {
  [anvil, postgres] = await Promise.all([startTestAnvil(), startTestPostgres()]);
  deployment = await deployMarketplace({
    rpcUrl: anvil.rpcUrl,
    deployerKey: devPrivateKey(0),
    authority: authority.address,
    feeRecipient: devAccount(1).address,
  });
  marketplace = connectMarketplace(anvil.rpcUrl, deployment.address);

  translator = await list(alice, "translator", "one_time", "0.03");
  researcher = await list(alice, "researcher", "subscription", "0.01");
  summarizer = await list(alice, "summarizer", "per_query", "0.002");
  retired = await list(alice, "retired", "one_time", "0.05");
  coder = await list(bob, "coder", "subscription", "0.02");
  await marketplace.mined(marketplace.as(alice).write.setListingActive([retired.id, false]));
  await rent(renterA, translator);
  await rent(renterB, translator);
  await rent(renterA, researcher);
  const lastReceipt = await rent(renterC, summarizer);

  ponders.push(
    await startTestPonder({
      rpcUrl: anvil.rpcUrl,
      databaseUrl: postgres.databaseUrl,
      deployment,
      viewsSchema: VIEWS_SCHEMA,
    }),
  );
  await currentPonder().waitForBlock(lastReceipt.blockNumber);
});

afterAll(async () => {
  await Promise.all(ponders.map((ponder) => ponder.stop()));
  await Promise.all([postgres?.stop(), anvil?.stop()]);
});

describe("reading the projections", () => {
  it("a separate process reads them through the views schema with drizzle", async () => {
    expect(await runReader((postgres as Postgres).databaseUrl)).toEqual(setUpReaderOutput());
  });

  it("GraphQL answers listing queries with filters and ordering", async () => {
    const query = `{
      listings(where: { status: active }, orderBy: "price", orderDirection: "desc") {
        items { id rentalModel price }
        totalCount
      }
    }`;
    const response = await fetch(`${currentPonder().url}/graphql`, {
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
    const explorer = await fetch(`${currentPonder().url}/graphql`);
    expect(explorer.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await explorer.text()).toContain("graphiql");
  });

  it("SQL over HTTP answers drizzle queries through @ponder/client", async () => {
    const client = createClient(`${currentPonder().url}/sql`, { schema });
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
    const databaseUrl = (postgres as Postgres).databaseUrl;
    const [first] = ponders as [TestPonder];

    // Blue/green: the second Ponder backfills into a schema of its own while the first keeps the
    // views fed, and points the views at its schema once it is ready.
    const second = await startTestPonder({
      rpcUrl: (anvil as Anvil).rpcUrl,
      databaseUrl,
      deployment,
      viewsSchema: VIEWS_SCHEMA,
    });
    ponders.push(second);
    expect(second.schema).not.toBe(first.schema);
    expect(await viewSource(databaseUrl, "listing")).toContain(`${second.schema}.listing`);
    expect(await runReader(databaseUrl)).toEqual(setUpReaderOutput());

    // Only now may the first go: stopped earlier, readers would see its frozen rows until the
    // second was ready. Whatever changes from here on can only reach the views through the second.
    await first.stop();
    ponders.shift();
    await marketplace.mined(marketplace.as(alice).write.setListingActive([retired.id, true]));
    const receipt = await rent(renterD, translator);
    await second.waitForBlock(receipt.blockNumber);

    expect(await runReader(databaseUrl)).toEqual(
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
async function viewSource(databaseUrl: string, view: string): Promise<string> {
  const sql = postgresClient(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`
      select view_definition from information_schema.views
      where table_schema = ${VIEWS_SCHEMA} and table_name = ${view}`;
    return String(row?.view_definition);
  } finally {
    await sql.end();
  }
}
