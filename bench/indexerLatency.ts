// Transaction-to-row latency of the Ponder indexer: how long after a marketplace transaction is sent
// its projection change is visible through the views schema. Run: npm run bench:indexer:latency
import { setTimeout as sleep } from "node:timers/promises";
import postgres from "postgres";
import { type Address, type Hex, toHex } from "viem";
import * as marketplace from "../devStack/marketplace.ts";
import { rpcRequest } from "../devStack/startAnvil.ts";
import type { Stack } from "../devStack/startStack.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { deriveListingId } from "../lib/ids/listingId.ts";
import { benchAddress, startBenchStack } from "./benchStack.ts";
import { fixed, table } from "./markdownTable.ts";
import { marketplaceCall as call } from "./marketplaceCall.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { mean, percentile } from "./statistics.ts";

const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 200);
const WARM_UP = 10;
/** What ponder.config.ts reads; startPonder passes the environment through. */
const POLLING_MS = Number(process.env.PONDER_POLLING_INTERVAL_MS ?? 100);
const DB_POLL_MS = 5;
const ROW_TIMEOUT_MS = 10_000;
const PRICE = 10n ** 15n;
const DEPOSIT = 10n ** 18n;
const POOL_SIZE = 20;
const VIEWS_SCHEMA = "marketplace";

type Kind =
  | "purchaseOneTime"
  | "purchaseSubscription"
  | "purchasePerQuery"
  | "topUpBalance"
  | "consumeQuery";

// Three purchases, three top-ups and four debits in every ten transactions.
const SCHEDULE: Kind[] = [
  "purchaseOneTime",
  "consumeQuery",
  "topUpBalance",
  "consumeQuery",
  "purchaseSubscription",
  "topUpBalance",
  "consumeQuery",
  "purchasePerQuery",
  "topUpBalance",
  "consumeQuery",
];

type CredentialRow = { total_paid: string; tasks_consumed: number };

type Operation = {
  kind: Kind;
  from: Address;
  data: Hex;
  value: bigint;
  listingId: Hex;
  buyer: Address;
  /** True once the projection shows this transaction. */
  visible: (row: CredentialRow | undefined) => boolean;
};

type Sample = { kind: Kind; receiptMs: number; rowMs: number; polls: number };

await runBenchmark(async (cleanup) => {
  const stack = await startBenchStack(cleanup, {});
  const rpcUrl = stack.anvil.rpcUrl;
  const creator = devAccount(2).address;
  const authority = devAccount(0).address;
  const listings = {
    oneTime: deriveListingId(creator, marketplace.seedOf("latency:one-time")),
    subscription: deriveListingId(creator, marketplace.seedOf("latency:subscription")),
    perQuery: deriveListingId(creator, marketplace.seedOf("latency:per-query")),
  };

  const send = async (from: Address, data: Hex, value = 0n) => {
    const hash = (await rpcRequest(rpcUrl, "eth_sendTransaction", [
      { from, to: stack.deployment.address, data, value: toHex(value), gas: toHex(500_000) },
    ])) as Hex;
    for (;;) {
      const receipt = (await rpcRequest(rpcUrl, "eth_getTransactionReceipt", [hash])) as {
        status: Hex;
        blockNumber: Hex;
      } | null;
      if (receipt) {
        if (receipt.status !== "0x1") throw new Error(`transaction ${hash} reverted`);
        return receipt;
      }
    }
  };

  // History before Ponder starts: three listings and a pool of per-task renters to top up and debit.
  for (const [label, model] of [
    ["one-time", marketplace.ONE_TIME],
    ["subscription", marketplace.SUBSCRIPTION],
    ["per-query", marketplace.PER_QUERY],
  ] as const) {
    await send(
      creator,
      call("createListing", [
        marketplace.seedOf(`latency:${label}`),
        model,
        PRICE,
        marketplace.METADATA_URI,
      ]),
    );
  }
  const pool = Array.from({ length: POOL_SIZE }, (_, i) => benchAddress(`latency:pool:${i}`));
  const expected = new Map<Address, { totalPaid: bigint; tasksConsumed: number }>();
  for (const renter of pool) {
    await rpcRequest(rpcUrl, "anvil_setBalance", [renter, toHex(10n ** 22n)]);
    await send(renter, call("purchasePerQuery", [listings.perQuery, PRICE]), DEPOSIT);
    expected.set(renter, { totalPaid: DEPOSIT, tasksConsumed: 0 });
  }

  const startingPonder = performance.now();
  const ponder = await stack.startIndexer({ schema: "bench_latency", viewsSchema: VIEWS_SCHEMA });
  const ponderReadyMs = performance.now() - startingPonder;
  // `/ready` covers the finalized range only; the last 30 blocks (all of them here) come in realtime.
  await ponder.waitForBlock(BigInt((await rpcRequest(rpcUrl, "eth_blockNumber")) as Hex));
  const sql = postgres(stack.postgres.databaseUrl, { max: 1, onnotice: () => {} });
  cleanup.add("postgres client", () => sql.end());
  const readCredential = async (listingId: Hex, buyer: Address) => {
    const rows = await sql<CredentialRow[]>`
      select total_paid::text as total_paid, tasks_consumed
      from ${sql(VIEWS_SCHEMA)}.credential
      where listing_id = ${listingId.toLowerCase()} and buyer = ${buyer.toLowerCase()}`;
    return rows[0];
  };
  // Hex columns hold lowercase text: the pool must be visible as queried before anything is timed.
  for (const renter of pool) {
    if (!(await readCredential(listings.perQuery, renter))) {
      throw new Error(`pool credential of ${renter} is not in ${VIEWS_SCHEMA}.credential`);
    }
  }

  let buyers = 0;
  let runId = 1n;
  let poolCursor = 0;
  const nextOperation = (kind: Kind): Operation => {
    const nextRenter = () => {
      const renter = pool[poolCursor++ % pool.length] as Address;
      return {
        renter,
        state: expected.get(renter) as { totalPaid: bigint; tasksConsumed: number },
      };
    };
    switch (kind) {
      case "topUpBalance": {
        const { renter, state } = nextRenter();
        state.totalPaid += PRICE;
        const totalPaid = state.totalPaid.toString();
        return {
          kind,
          from: renter,
          data: call("topUpBalance", [listings.perQuery, PRICE]),
          value: PRICE,
          listingId: listings.perQuery,
          buyer: renter,
          visible: (row) => row?.total_paid === totalPaid,
        };
      }
      case "consumeQuery": {
        const { renter, state } = nextRenter();
        state.tasksConsumed += 1;
        const tasksConsumed = state.tasksConsumed;
        return {
          kind,
          from: authority,
          data: call("consumeQuery", [listings.perQuery, renter, runId++, PRICE, true]),
          value: 0n,
          listingId: listings.perQuery,
          buyer: renter,
          visible: (row) => row?.tasks_consumed === tasksConsumed,
        };
      }
      default: {
        const buyer = benchAddress(`latency:buyer:${buyers++}`);
        const [listingId, data, value] =
          kind === "purchaseOneTime"
            ? [listings.oneTime, call("purchaseOneTime", [listings.oneTime]), PRICE]
            : kind === "purchaseSubscription"
              ? [
                  listings.subscription,
                  call("purchaseSubscription", [listings.subscription, marketplace.THIRTY_DAYS]),
                  PRICE,
                ]
              : [listings.perQuery, call("purchasePerQuery", [listings.perQuery, PRICE]), DEPOSIT];
        const visible = (row: CredentialRow | undefined) => row !== undefined;
        return { kind, from: buyer, data, value, listingId, buyer, visible };
      }
    }
  };

  const queryMs: number[] = [];
  const measure = async (operation: Operation): Promise<Sample> => {
    // A new buyer needs ETH; funding it is not part of the measurement.
    if (operation.kind.startsWith("purchase")) {
      await rpcRequest(rpcUrl, "anvil_setBalance", [operation.from, toHex(10n ** 22n)]);
    }
    // A random phase against Ponder's poll: sending right after the last row appeared would
    // otherwise always land at the same point of the polling cycle.
    await sleep(Math.random() * POLLING_MS);
    const sent = performance.now();
    await send(operation.from, operation.data, operation.value);
    const received = performance.now();
    let polls = 0;
    for (;;) {
      const queried = performance.now();
      const row = await readCredential(operation.listingId, operation.buyer);
      queryMs.push(performance.now() - queried);
      polls++;
      if (operation.visible(row)) break;
      if (performance.now() - sent > ROW_TIMEOUT_MS) {
        throw new Error(
          `${operation.kind} for ${operation.buyer} not visible after ${ROW_TIMEOUT_MS} ms (row: ${JSON.stringify(row)})`,
        );
      }
      await sleep(DB_POLL_MS);
    }
    const visible = performance.now();
    return { kind: operation.kind, receiptMs: received - sent, rowMs: visible - sent, polls };
  };

  console.log(
    `Ponder ready after ${fixed(ponderReadyMs / 1000, 2)} s; ${WARM_UP} warm-up and ${TRANSACTIONS} timed transactions follow.`,
  );
  for (let i = 0; i < WARM_UP; i++)
    await measure(nextOperation(SCHEDULE[i % SCHEDULE.length] as Kind));
  queryMs.length = 0;
  const samples: Sample[] = [];
  for (let i = 0; i < TRANSACTIONS; i++) {
    samples.push(await measure(nextOperation(SCHEDULE[i % SCHEDULE.length] as Kind)));
  }
  report(stack, samples, queryMs);
});

function report(stack: Stack, samples: Sample[], queryMs: number[]) {
  const stats = (values: number[]) => [
    fixed(percentile(values, 50)),
    fixed(percentile(values, 95)),
    fixed(percentile(values, 99)),
    fixed(Math.max(...values)),
    fixed(mean(values)),
  ];
  const receipt = samples.map((s) => s.receiptMs);
  const row = samples.map((s) => s.rowMs);
  const ponderOwn = samples.map((s) => s.rowMs - s.receiptMs);
  const header = ["ms", "p50", "p95", "p99", "max", "mean"];
  console.log(
    `\nIndexer latency: ${samples.length} transactions one at a time on anvil (auto-mine), Ponder polling every ${POLLING_MS} ms, row polled every ${DB_POLL_MS} ms through "${VIEWS_SCHEMA}".\n`,
  );
  console.log(
    table(header, [
      ["baseline: eth_sendTransaction → receipt", ...stats(receipt)],
      ["receipt → row visible", ...stats(ponderOwn)],
      ["eth_sendTransaction → row visible", ...stats(row)],
      ["one Postgres row query (poll cost)", ...stats(queryMs)],
    ]),
  );
  const kinds = [...new Set(samples.map((s) => s.kind))];
  console.log("\nBy operation, eth_sendTransaction → row visible:\n");
  console.log(
    table(
      ["operation", "count", "p50", "p95", "max"],
      kinds.map((kind) => {
        const values = samples.filter((s) => s.kind === kind).map((s) => s.rowMs);
        return [
          kind,
          String(values.length),
          fixed(percentile(values, 50)),
          fixed(percentile(values, 95)),
          fixed(Math.max(...values)),
        ];
      }),
    ),
  );
  const immediate = samples.filter((s) => s.polls === 1).length;
  const p95 = percentile(row, 95);
  console.log(
    [
      "",
      `Polling interval ${POLLING_MS} ms: a block waits ${fixed(POLLING_MS / 2)} ms for Ponder's next poll on average, up to ${POLLING_MS} ms.`,
      `Row already visible at the first query after the receipt: ${immediate} of ${samples.length}.`,
      `Ratio send→row / send→receipt: p50 ${fixed(percentile(row, 50) / percentile(receipt, 50))}×, p95 ${fixed(p95 / percentile(receipt, 95))}×.`,
      `Target p95 ≤ 500 ms: ${p95 <= 500 ? "met" : "MISSED"} (p95 ${fixed(p95)} ms).`,
      `Chain ${stack.deployment.chainId}, marketplace ${stack.deployment.address}.`,
      reproduce("bench:indexer:latency", ["BENCH_TRANSACTIONS", "PONDER_POLLING_INTERVAL_MS"]),
    ].join("\n"),
  );
}
