// How soon the creator's My listings page shows a purchase: from the block that holds it to the new
// count on the screen of a real Chromium, never reloaded, beside the same purchase's arrival in the
// indexer's row and in the API's answer, measured in the same run. Run: npm run bench:dashboard
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { type Address, type Hex, toHex } from "viem";
import { signIn } from "../devStack/client/signIn.ts";
import * as marketplace from "../devStack/marketplace.ts";
import { rpcRequest } from "../devStack/startAnvil.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { deriveListingId } from "../lib/ids/listingId.ts";
import { launchBrowser } from "../test/support/browser.ts";
import { receiptSeenAt } from "../test/support/receiptSeenAt.ts";
import { recordTextChanges } from "../test/support/textChanges.ts";
import { benchAddress, startBenchStack, UNLIMITED_RATE } from "./benchStack.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { marketplaceCall as call } from "./marketplaceCall.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { mean, percentile } from "./statistics.ts";

const PURCHASES = Number(process.env.BENCH_PURCHASES ?? 20);
/** The pause between one purchase shown and the next sent, plus up to one Ponder poll at random. */
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 300);
const WARM_UP = 3;
/** What ponder.config.ts reads by default. */
const PONDER_POLLING_MS = 100;
const POLL_MS = 5;
const SHOWN_TIMEOUT_MS = 15_000;
const PRICE = 10n ** 15n;
/** Where `npm run build:dashboard` puts the dashboard, which the API serves. */
const DASHBOARD_DIR = fileURLToPath(new URL("../dashboard/dist", import.meta.url));
/** The account the dashboard offers on the local chain ("Use anvil dev account"): the creator. */
const CREATOR = devAccount(3);

/** One purchase's moments, `Date.now()` of this machine's clock (the page's too). */
type Sample = {
  sent: number;
  mined: number;
  /** `marketplace.purchase_event` holds it (Ponder committed the block). */
  row: number;
  /** `GET /v1/creators/me/listings` answers the new count. */
  api: number;
  /** The creator's page shows the new count (a MutationObserver in the page). */
  screen: number;
};

await runBenchmark(async (cleanup) => {
  const stack = await startBenchStack(cleanup, {
    api: 1,
    rateLimitPerMinute: UNLIMITED_RATE,
    env: { DASHBOARD_DIR },
  });
  const rpcUrl = stack.anvil.rpcUrl;
  const seed = marketplace.seedOf("dashboard-live-update");
  const listingId = deriveListingId(CREATOR.address, seed);
  const send = (from: Address, data: Hex, value = 0n) =>
    rpcRequest(rpcUrl, "eth_sendTransaction", [
      { from, to: stack.deployment.address, data, value: toHex(value), gas: toHex(500_000) },
    ]) as Promise<Hex>;
  await receiptSeenAt(
    stack.marketplace.publicClient,
    await send(
      CREATOR.address,
      call("createListing", [seed, marketplace.ONE_TIME, PRICE, marketplace.METADATA_URI]),
    ),
  );

  const browser = await launchBrowser();
  cleanup.add("browser", () => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${stack.api.url}/my-listings`);
  await page
    .getByRole("main")
    .getByRole("button", { name: "Use anvil dev account (public key, local chain only)" })
    .click();
  await page.getByRole("button", { name: "Sign in with wallet" }).click();
  await page.getByRole("heading", { name: "My listings" }).waitFor();
  await page.getByTestId("purchases").filter({ hasText: /^0$/ }).waitFor();
  const shown = await recordTextChanges(page, "purchases");

  const token = await signIn(stack.api.url, CREATOR);
  const apiPurchases = async () => {
    const response = await fetch(`${stack.api.url}/v1/creators/me/listings`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { listings: { on_chain_id: Hex; purchases: number }[] };
    return body.listings.find((listing) => listing.on_chain_id === listingId)?.purchases ?? 0;
  };
  const sql = postgres(stack.postgres.databaseUrl, { max: 1, onnotice: () => {} });
  cleanup.add("postgres client", () => sql.end());
  const rowPurchases = async () => {
    const [row] = await sql<{ count: number }[]>`
      select count(*)::int as count from marketplace.purchase_event
      where listing_id = ${listingId.toLowerCase()}`;
    return row?.count ?? 0;
  };
  /** When `read` first answers at least `count`, asked every POLL_MS. */
  const reached = async (read: () => Promise<number>, count: number, what: string) => {
    const deadline = Date.now() + SHOWN_TIMEOUT_MS;
    while ((await read()) < count) {
      if (Date.now() > deadline) throw new Error(`${what} did not reach ${count} purchases`);
      await sleep(POLL_MS);
    }
    return Date.now();
  };

  const purchase = async (index: number): Promise<Sample> => {
    const renter = benchAddress(`dashboard:renter:${index}`);
    await rpcRequest(rpcUrl, "anvil_setBalance", [renter, toHex(10n ** 20n)]);
    // A random phase against Ponder's poll, as in the indexer's latency benchmark.
    await sleep(GAP_MS + Math.random() * PONDER_POLLING_MS);
    const count = index + 1;
    const sent = Date.now();
    const hash = await send(renter, call("purchaseOneTime", [listingId]), PRICE);
    const [mined, row, api] = await Promise.all([
      receiptSeenAt(stack.marketplace.publicClient, hash),
      reached(rowPurchases, count, "the purchase_event rows"),
      reached(apiPurchases, count, "GET /v1/creators/me/listings"),
    ]);
    // The page noted the moment itself: asking after the fact changes nothing.
    return { sent, mined, row, api, screen: await shown.shownAt(String(count), SHOWN_TIMEOUT_MS) };
  };

  const loadBefore = loadavg();
  for (let i = 0; i < WARM_UP; i++) await purchase(i);
  const samples: Sample[] = [];
  for (let i = WARM_UP; i < WARM_UP + PURCHASES; i++) {
    const sample = await purchase(i);
    samples.push(sample);
    console.log(
      `  purchase ${samples.length}: mined → row ${sample.row - sample.mined} ms, → API ${sample.api - sample.mined} ms, → screen ${sample.screen - sample.mined} ms`,
    );
  }
  const changes = await shown.changes();
  const expected = Array.from({ length: WARM_UP + PURCHASES + 1 }, (_, count) => String(count));
  if (changes.map((change) => change.text).join() !== expected.join()) {
    throw new Error(`the page showed ${JSON.stringify(changes.map((c) => c.text))}`);
  }
  report(samples, loadBefore, loadavg());
});

function report(samples: Sample[], loadBefore: number[], loadAfter: number[]) {
  const since = (from: keyof Sample, to: keyof Sample) => samples.map((s) => s[to] - s[from]);
  const stats = (values: number[]) => [
    fixed(percentile(values, 50), 0),
    fixed(percentile(values, 95), 0),
    fixed(Math.max(...values), 0),
    fixed(mean(values), 0),
  ];
  const screen = since("mined", "screen");
  const api = since("mined", "api");
  const p95 = percentile(screen, 95);
  console.log(
    `\nThe creator's screen after a purchase: ${samples.length} one-time purchases one at a time (after ${WARM_UP} untimed), ${GAP_MS}–${GAP_MS + PONDER_POLLING_MS} ms apart, each from a new renter; Ponder polling every ${PONDER_POLLING_MS} ms; row and API polled every ${POLL_MS} ms.\n`,
  );
  console.log(
    table(
      ["ms", "p50", "p95", "max", "mean"],
      [
        ["eth_sendTransaction → receipt (mined)", ...stats(since("sent", "mined"))],
        ["mined → Ponder's row", ...stats(since("mined", "row"))],
        ["baseline: mined → the API answers it", ...stats(api)],
        ["mined → the creator's screen shows it", ...stats(screen)],
        ["the API answers it → the screen shows it", ...stats(since("api", "screen"))],
      ],
    ),
  );
  console.log(
    [
      "",
      `Ratio mined→screen / mined→API: p50 ${fixed(percentile(screen, 50) / percentile(api, 50), 2)}×, p95 ${fixed(p95 / percentile(api, 95), 2)}×.`,
      `Goal, the screen within 2 s of the block: ${p95 <= 2_000 && Math.max(...screen) <= 2_000 ? "met" : "MISSED"} (p95 ${fixed(p95, 0)} ms, max ${fixed(Math.max(...screen), 0)} ms).`,
      loadAverageLine(loadBefore, loadAfter),
      reproduce("bench:dashboard", ["BENCH_PURCHASES", "BENCH_GAP_MS"]),
    ].join("\n"),
  );
}
