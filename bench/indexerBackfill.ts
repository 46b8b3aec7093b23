// Backfill throughput of the Ponder indexer over a generated history of 10,000+ marketplace events
// (and 6,000 runs' counts their anchors carry), against a plain eth_getLogs + decodeEventLog scan of
// the same range. Run:
// npm run bench:indexer:backfill
import postgres from "postgres";
import { type Address, decodeEventLog, type Hex, hexToNumber, keccak256, toHex } from "viem";
import * as marketplace from "../devStack/marketplace.ts";
import { rpcRequest } from "../devStack/startAnvil.ts";
import type { Stack } from "../devStack/startStack.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../lib/contracts/serviceMarketplace.ts";
import { deriveListingId } from "../lib/ids/listingId.ts";
import { benchAddress, startBenchStack } from "./benchStack.ts";
import { logSpanMs } from "./logSpanMs.ts";
import { fixed, table } from "./markdownTable.ts";
import { marketplaceCall as call } from "./marketplaceCall.ts";
import { reproduce } from "./reproduce.ts";
import { type RpcCall, rpcBatch } from "./rpcBatch.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { median } from "./statistics.ts";

const CREATORS = 10;
/** Per creator and rental model. */
const LISTINGS_EACH = 2;
const RENTERS = 600;
const TOP_UPS_PER_RENTER = 3;
const DEBITS_PER_RENTER = 10;
/** Anchors of uncharged runs' receipts, each counting RUNS_PER_BATCH runs over every listing. */
const RUN_BATCHES = 100;
const RUNS_PER_BATCH = 100;
const TXS_PER_BLOCK = 50;
/** Ponder treats the last 30 blocks of an unknown chain as unfinalized and syncs them in realtime. */
const CONFIRMATIONS = 40;
const LOG_CHUNK_BLOCKS = 500;
const BASELINE_REPEATS = 3;
const EMPTY_RUNS = 3;
const COLD_RUNS = 2;
const WARM_RUNS = 2;
const PRICE = 10n ** 15n;
const DEPOSIT = 10n ** 17n;
const FUNDS = toHex(10n ** 24n);

type Tx = {
  from: Address;
  data: Hex;
  value?: bigint;
  gas: number;
  /** Marketplace events it emits, by name. */
  events: Record<string, number>;
  /** Listings' run counts its `RunsAnchored` carries: an `anchored_run_count` row each. */
  anchoredCounts?: number;
};

/** Emitted by the constructor in the deployment block. */
const constructorEvents = {
  AuthorityTransferred: 1,
  FeeRecipientUpdated: 1,
  FeeBasisPointsUpdated: 1,
};

await runBenchmark(async (cleanup) => {
  const ponderOutput = captureOutput();
  const stack = await startBenchStack(cleanup, { onOutput: ponderOutput.onOutput });
  const rpcUrl = stack.anvil.rpcUrl;

  // Fixed cost: Ponder on a chain holding only the deployment (and CONFIRMATIONS empty blocks).
  await rpcRequest(rpcUrl, "anvil_mine", [toHex(CONFIRMATIONS)]);
  const emptyRuns: PonderRun[] = [];
  for (let i = 1; i <= EMPTY_RUNS; i++) {
    emptyRuns.push(await timePonder(stack, ponderOutput, `empty_${i}`, `empty_${i}`));
  }
  console.log(
    `Ponder on an empty history: ${seconds(emptyRuns.map((r) => r.readyMs))} s to /ready.`,
  );

  const generated = await generateHistory(stack);
  await rpcRequest(rpcUrl, "anvil_mine", [toHex(CONFIRMATIONS)]);
  const toBlock = hexToNumber((await rpcRequest(rpcUrl, "eth_blockNumber")) as Hex);
  const fromBlock = stack.deployment.startBlock;
  console.log(
    `History: ${generated.transactions} transactions in ${generated.blocks} blocks, generated in ${fixed(generated.ms / 1000, 1)} s.`,
  );

  const scans: Scan[] = [];
  const blockScans: Scan[] = [];
  for (let i = 0; i < BASELINE_REPEATS; i++) {
    scans.push(await scanLogs(stack, fromBlock, toBlock, false));
    blockScans.push(await scanLogs(stack, fromBlock, toBlock, true));
  }
  const scan = scans[0] as Scan;
  const expected = { ...generated.events, ...constructorEvents };
  for (const [name, count] of Object.entries(expected)) {
    if (scan.byName[name] !== count) {
      throw new Error(
        `expected ${count} ${name} events on chain, found ${scan.byName[name] ?? 0}: a transaction reverted`,
      );
    }
  }
  console.log(`eth_getLogs scans: ${seconds(scans.map((s) => s.ms))} s.`);

  const verify = { events: generated.events, anchoredCounts: generated.anchoredCounts };
  const coldRuns: PonderRun[] = [];
  for (let i = 1; i <= COLD_RUNS; i++) {
    coldRuns.push(await timePonder(stack, ponderOutput, `history_${i}`, `cold_${i}`, verify));
  }
  console.log(`Ponder backfill, RPC cache empty: ${seconds(coldRuns.map((r) => r.readyMs))} s.`);
  // The first database again: its ponder_sync caches the range, so this is indexing without RPC.
  const warmRuns: PonderRun[] = [];
  for (let i = 1; i <= WARM_RUNS; i++) {
    warmRuns.push(await timePonder(stack, ponderOutput, "history_1", `warm_${i}`, verify));
  }
  console.log(`Ponder backfill, RPC cache warm: ${seconds(warmRuns.map((r) => r.readyMs))} s.`);

  report({
    events: scan.count,
    byName: scan.byName,
    blocks: toBlock - fromBlock + 1,
    blocksWithLogs: scan.blocksWithLogs,
    transactions: generated.transactions,
    generationMs: generated.ms,
    chunks: scan.chunks,
    scans,
    blockScans,
    emptyRuns,
    coldRuns,
    warmRuns,
  });
});

type PonderRun = {
  /** `ponder start` until `/ready` answers 200. */
  readyMs: number;
  /** From Ponder's log: "Started backfill indexing" until "Completed backfill indexing". */
  backfillMs: number | undefined;
  /** From Ponder's log: fetching the range's JSON-RPC data. */
  fetchMs: number | undefined;
  /** Ponder's own JSON-RPC requests, from its /metrics. */
  rpc: Record<string, { count: number; totalMs: number }>;
};

/**
 * What the stack's servers print while one Ponder is timed; Ponder's own lines carry the phase
 * markers `logSpanMs` looks for.
 */
function captureOutput() {
  let text: string | undefined;
  return {
    onOutput: (line: string) => {
      if (text !== undefined) text += line;
    },
    start: () => {
      text = "";
    },
    stop: () => {
      const captured = text ?? "";
      text = undefined;
      return captured;
    },
  };
}

/** One `ponder start` into a fresh schema of `database`, timed to `/ready`, checked, stopped. */
async function timePonder(
  stack: Stack,
  ponderOutput: ReturnType<typeof captureOutput>,
  database: string,
  name: string,
  verify?: Verification,
): Promise<PonderRun> {
  const databaseUrl = await databaseOf(stack, `bench_${database}`);
  const viewsSchema = `marketplace_${name}`;
  ponderOutput.start();
  const started = performance.now();
  const ponder = await stack
    .startIndexer({ databaseUrl, schema: `backfill_${name}`, viewsSchema })
    .catch((error: unknown) => {
      console.error(`ponder output:\n${ponderOutput.stop().slice(-4000)}`);
      throw error;
    });
  const readyMs = performance.now() - started;
  try {
    if (verify) await verifyProjections(databaseUrl, viewsSchema, verify);
    const rpc = parseRpcMetrics(await (await fetch(`${ponder.url}/metrics`)).text());
    const log = ponderOutput.stop();
    return {
      readyMs,
      backfillMs: logSpanMs(log, "Started backfill indexing", "Completed backfill indexing"),
      fetchMs: logSpanMs(
        log,
        "Started fetching backfill JSON-RPC data",
        "Finished fetching backfill",
      ),
      rpc,
    };
  } finally {
    await ponder.stop();
  }
}

/** The URL of `database` in the stack's cluster, created if missing. */
async function databaseOf(stack: Stack, database: string): Promise<string> {
  const stackUrl = stack.postgres.databaseUrl;
  const sql = postgres(stackUrl, { max: 1, onnotice: () => {} });
  try {
    const [existing] = await sql`select 1 from pg_database where datname = ${database}`;
    if (!existing) await sql.unsafe(`create database "${database}"`);
  } finally {
    await sql.end();
  }
  return stackUrl.replace(/\/[^/]+$/, `/${database}`);
}

function parseRpcMetrics(text: string) {
  const rpc: Record<string, { count: number; totalMs: number }> = {};
  for (const match of text.matchAll(
    /^ponder_rpc_request_duration_(count|sum)\{([^}]*)\} ([\d.e+]+)$/gm,
  )) {
    const method = /method="([^"]+)"/.exec(match[2] ?? "")?.[1] ?? "?";
    const entry = rpc[method] ?? { count: 0, totalMs: 0 };
    rpc[method] = entry;
    if (match[1] === "count") entry.count += Number(match[3]);
    else entry.totalMs += Number(match[3]);
  }
  return rpc;
}

function seconds(ms: number[]): string {
  return ms.map((value) => fixed(value / 1000, 2)).join(", ");
}

// ─── History ────────────────────────────────────────────────────────────────

async function generateHistory(stack: Stack) {
  const rpcUrl = stack.anvil.rpcUrl;
  const started = performance.now();
  const creators = Array.from({ length: CREATORS }, (_, i) =>
    benchAddress(`backfill:creator:${i}`),
  );
  const renters = Array.from({ length: RENTERS }, (_, i) => benchAddress(`backfill:renter:${i}`));
  // Derived once: deriving a dev account runs the mnemonic's key stretching.
  const authority = devAccount(0).address;
  const feeRecipient = devAccount(1).address;
  const senders = [authority, feeRecipient, ...creators, ...renters];
  await rpcBatch(
    rpcUrl,
    senders.map((address) => ({ method: "anvil_setBalance", params: [address, FUNDS] })),
  );

  const listingsOf: Record<typeof marketplace.ONE_TIME, Hex[]> = { 0: [], 1: [], 2: [] };
  const creatorOf = new Map<Hex, Address>();
  const phases: Tx[][] = [[], [], [], []];
  const [listingTxs, purchaseTxs, usageTxs, withdrawalTxs] = phases as [Tx[], Tx[], Tx[], Tx[]];

  for (const [c, creator] of creators.entries()) {
    for (const model of [
      marketplace.ONE_TIME,
      marketplace.SUBSCRIPTION,
      marketplace.PER_QUERY,
    ] as const) {
      for (let n = 0; n < LISTINGS_EACH; n++) {
        const seed = marketplace.seedOf(`backfill:${c}:${model}:${n}`);
        const listingId = deriveListingId(creator, seed);
        listingsOf[model].push(listingId);
        creatorOf.set(listingId, creator);
        listingTxs.push({
          from: creator,
          data: call("createListing", [seed, model, PRICE, marketplace.METADATA_URI]),
          gas: 200_000,
          events: { ListingCreated: 1 },
        });
      }
    }
  }
  const pick = (model: 0 | 1 | 2, i: number) =>
    listingsOf[model][i % listingsOf[model].length] as Hex;

  for (const [r, renter] of renters.entries()) {
    purchaseTxs.push(
      {
        from: renter,
        data: call("purchaseOneTime", [pick(marketplace.ONE_TIME, r)]),
        value: PRICE,
        gas: 200_000,
        events: { AccessPurchased: 1 },
      },
      {
        from: renter,
        data: call("purchaseSubscription", [
          pick(marketplace.SUBSCRIPTION, r),
          marketplace.THIRTY_DAYS,
        ]),
        value: PRICE,
        gas: 200_000,
        events: { AccessPurchased: 1 },
      },
      {
        from: renter,
        data: call("purchasePerQuery", [pick(marketplace.PER_QUERY, r), PRICE]),
        value: DEPOSIT,
        gas: 200_000,
        events: { PerQueryPurchased: 1 },
      },
    );
  }

  // Usage, interleaved as it would arrive: renewals, top-ups, debits and anchors of uncharged runs.
  let runId = 1n;
  const debitTxs: Tx[] = [];
  const renterTxs: Tx[] = [];
  for (const [r, renter] of renters.entries()) {
    renterTxs.push({
      from: renter,
      data: call("renewSubscription", [pick(marketplace.SUBSCRIPTION, r), marketplace.THIRTY_DAYS]),
      value: PRICE,
      gas: 200_000,
      events: { SubscriptionRenewed: 1 },
    });
    for (let t = 0; t < TOP_UPS_PER_RENTER; t++) {
      renterTxs.push({
        from: renter,
        data: call("topUpBalance", [pick(marketplace.PER_QUERY, r), PRICE]),
        value: PRICE,
        gas: 200_000,
        events: { BalanceToppedUp: 1 },
      });
    }
  }
  for (let d = 0; d < DEBITS_PER_RENTER; d++) {
    for (const [r, renter] of renters.entries()) {
      debitTxs.push({
        from: authority,
        data: call("consumeQuery", [pick(marketplace.PER_QUERY, r), renter, runId++, PRICE, true]),
        gas: 200_000,
        events: { QueryConsumed: 1 },
      });
    }
  }
  const allListings = [
    ...listingsOf[marketplace.ONE_TIME],
    ...listingsOf[marketplace.SUBSCRIPTION],
    ...listingsOf[marketplace.PER_QUERY],
  ];
  const runTxs: Tx[] = [];
  for (let b = 0; b < RUN_BATCHES; b++) {
    // The batch's runs go round the listings; a tenth of them failed.
    const counts = new Map<Hex, { listingId: Hex; runs: number; failed: number }>();
    for (let i = 0; i < RUNS_PER_BATCH; i++) {
      const listingId = allListings[(b * RUNS_PER_BATCH + i) % allListings.length] as Hex;
      const count = counts.get(listingId) ?? { listingId, runs: 0, failed: 0 };
      count.runs += 1;
      if (i % 10 === 0) count.failed += 1;
      counts.set(listingId, count);
    }
    runTxs.push({
      from: authority,
      data: call("settle", [[], keccak256(toHex(`backfill:anchor:${b}`)), [...counts.values()]]),
      gas: 4_000_000,
      events: { RunsAnchored: 1 },
      anchoredCounts: counts.size,
    });
  }
  // Renter transactions keep their own order (nonces); the authority's are spread between them.
  const authorityTxs = interleave(debitTxs, runTxs);
  usageTxs.push(...interleave(renterTxs, authorityTxs));

  for (const listingId of allListings) {
    withdrawalTxs.push({
      from: creatorOf.get(listingId) as Address,
      data: call("withdrawEarnings", [listingId, PRICE / 2n]),
      gas: 200_000,
      events: { EarningsWithdrawn: 1 },
    });
  }
  withdrawalTxs.push({
    from: feeRecipient,
    data: call("withdrawFees", [allListings]),
    gas: 1_000_000,
    events: { FeesWithdrawn: 1 },
  });

  // Pack TXS_PER_BLOCK transactions into each block; each phase is mined before the next depends on it.
  const nonces = new Map<Address, number>();
  for (const sender of [authority, feeRecipient]) {
    nonces.set(
      sender,
      hexToNumber(
        (await rpcRequest(rpcUrl, "eth_getTransactionCount", [sender, "pending"])) as Hex,
      ),
    );
  }
  await rpcRequest(rpcUrl, "evm_setAutomine", [false]);
  let blocks = 0;
  const events: Record<string, number> = {};
  let anchoredCounts = 0;
  for (const phase of phases) {
    for (let i = 0; i < phase.length; i += TXS_PER_BLOCK) {
      const chunk = phase.slice(i, i + TXS_PER_BLOCK);
      const sends: RpcCall[] = chunk.map((tx) => {
        const nonce = nonces.get(tx.from) ?? 0;
        nonces.set(tx.from, nonce + 1);
        for (const [name, count] of Object.entries(tx.events))
          events[name] = (events[name] ?? 0) + count;
        anchoredCounts += tx.anchoredCounts ?? 0;
        return {
          method: "eth_sendTransaction",
          params: [
            {
              from: tx.from,
              to: stack.deployment.address,
              data: tx.data,
              value: toHex(tx.value ?? 0n),
              gas: toHex(tx.gas),
              nonce: toHex(nonce),
              maxFeePerGas: toHex(100_000_000_000n),
              maxPriorityFeePerGas: toHex(1n),
            },
          ],
        };
      });
      await rpcBatch(rpcUrl, sends);
      await rpcRequest(rpcUrl, "evm_mine");
      blocks++;
    }
    // Whatever did not fit is mined before the next phase.
    for (let extra = 0; ; extra++) {
      const status = (await rpcRequest(rpcUrl, "txpool_status")) as { pending: Hex; queued: Hex };
      if (hexToNumber(status.pending) === 0 && hexToNumber(status.queued) === 0) break;
      if (extra > 100) throw new Error(`transactions stuck in the pool: ${JSON.stringify(status)}`);
      await rpcRequest(rpcUrl, "evm_mine");
      blocks++;
    }
  }
  await rpcRequest(rpcUrl, "evm_setAutomine", [true]);
  const transactions = phases.reduce((sum, phase) => sum + phase.length, 0);
  return { transactions, blocks, events, anchoredCounts, ms: performance.now() - started };
}

/** Spreads `b` evenly through `a`, keeping the order within each. */
function interleave<T>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  const total = a.length + b.length;
  let i = 0;
  let j = 0;
  for (let k = 0; k < total; k++) {
    const takeB = j < b.length && (i >= a.length || (j + 1) * a.length <= (i + 1) * b.length);
    out.push(takeB ? (b[j++] as T) : (a[i++] as T));
  }
  return out;
}

// ─── Baseline ───────────────────────────────────────────────────────────────

type Scan = {
  ms: number;
  count: number;
  chunks: number;
  blocksWithLogs: number;
  byName: Record<string, number>;
};

/**
 * The floor: every marketplace log in the range over eth_getLogs, decoded with viem. With `withBlocks`,
 * also each block holding logs with its transactions (eth_getBlockByNumber, one at a time): the data
 * Ponder's historical sync fetches for log handlers (timestamps, transactions).
 */
async function scanLogs(
  stack: Stack,
  fromBlock: number,
  toBlock: number,
  withBlocks: boolean,
): Promise<Scan> {
  const started = performance.now();
  const byName: Record<string, number> = {};
  const blocks = new Set<Hex>();
  let count = 0;
  let chunks = 0;
  for (let from = fromBlock; from <= toBlock; from += LOG_CHUNK_BLOCKS) {
    const to = Math.min(toBlock, from + LOG_CHUNK_BLOCKS - 1);
    const logs = (await rpcRequest(stack.anvil.rpcUrl, "eth_getLogs", [
      { address: stack.deployment.address, fromBlock: toHex(from), toBlock: toHex(to) },
    ])) as { data: Hex; topics: [Hex, ...Hex[]]; blockNumber: Hex }[];
    chunks++;
    for (const log of logs) {
      const decoded = decodeEventLog({
        abi: serviceMarketplaceAbi,
        data: log.data,
        topics: log.topics,
      });
      byName[decoded.eventName] = (byName[decoded.eventName] ?? 0) + 1;
      blocks.add(log.blockNumber);
      count++;
    }
  }
  if (withBlocks) {
    for (const block of blocks) {
      const fetched = await rpcRequest(stack.anvil.rpcUrl, "eth_getBlockByNumber", [block, true]);
      if (!fetched) throw new Error(`block ${block} is missing`);
    }
  }
  return { ms: performance.now() - started, count, chunks, blocksWithLogs: blocks.size, byName };
}

// ─── Checks ─────────────────────────────────────────────────────────────────

/** What the history sent: its events by name, and the run counts its anchors carried. */
type Verification = { events: Record<string, number>; anchoredCounts: number };

/** The backfill must have indexed everything: row counts against the events sent. */
async function verifyProjections(
  databaseUrl: string,
  viewsSchema: string,
  { events, anchoredCounts }: Verification,
) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const count = async (tableName: string) => {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from ${sql(viewsSchema)}.${sql(tableName)}`;
    return row?.n ?? 0;
  };
  const checks: [string, number][] = [
    ["listing", events.ListingCreated ?? 0],
    ["purchase_event", (events.AccessPurchased ?? 0) + (events.PerQueryPurchased ?? 0)],
    ["renewal_event", events.SubscriptionRenewed ?? 0],
    ["top_up_event", events.BalanceToppedUp ?? 0],
    ["debit_event", events.QueryConsumed ?? 0],
    ["run_event", events.QueryConsumed ?? 0],
    ["anchored_run_count", anchoredCounts],
    ["withdrawal_event", (events.EarningsWithdrawn ?? 0) + (events.FeesWithdrawn ?? 0)],
  ];
  try {
    for (const [tableName, expected] of checks) {
      const actual = await count(tableName);
      if (actual !== expected) {
        throw new Error(`${viewsSchema}.${tableName} has ${actual} rows, expected ${expected}`);
      }
    }
  } finally {
    await sql.end();
  }
}

// ─── Report ─────────────────────────────────────────────────────────────────

function report(r: {
  events: number;
  byName: Record<string, number>;
  blocks: number;
  blocksWithLogs: number;
  transactions: number;
  generationMs: number;
  chunks: number;
  scans: Scan[];
  blockScans: Scan[];
  emptyRuns: PonderRun[];
  coldRuns: PonderRun[];
  warmRuns: PonderRun[];
}) {
  const baselineMs = median(r.scans.map((s) => s.ms));
  const baselineRate = r.events / (baselineMs / 1000);
  const fixedMs = median(r.emptyRuns.map((run) => run.readyMs));
  const row = (label: string, runs: (number | undefined)[]) => {
    const known = runs.filter((ms): ms is number => ms !== undefined);
    if (known.length === 0) return [label, "n/a", "n/a", "n/a", "n/a"];
    const ms = median(known);
    const rate = r.events / (ms / 1000);
    return [
      label,
      known.map((value) => fixed(value / 1000, 2)).join(", "),
      fixed(ms / 1000, 2),
      fixed(rate, 0),
      fixed(rate / baselineRate, 3),
    ];
  };
  const ponderRows = (cache: string, runs: PonderRun[], backfillPhase: string) => [
    row(
      `ponder start → /ready, ${cache} RPC cache`,
      runs.map((run) => run.readyMs),
    ),
    row(
      "  same, minus the fixed cost",
      runs.map((run) => run.readyMs - fixedMs),
    ),
    row(
      `  ${backfillPhase}`,
      runs.map((run) => run.backfillMs),
    ),
  ];
  console.log(
    `\nIndexer backfill: ${r.events.toLocaleString("en-US")} events, ${r.transactions.toLocaleString("en-US")} transactions, ${r.blocks} blocks (${r.blocksWithLogs} with marketplace logs, ${TXS_PER_BLOCK} transactions per block; the last ${CONFIRMATIONS} are empty so that Ponder sees all of it as finalized).\n`,
  );
  console.log(
    table(
      ["event", "count"],
      Object.entries(r.byName)
        .sort((a, b) => b[1] - a[1])
        .map(([name, count]) => [name, count.toLocaleString("en-US")]),
    ),
  );
  console.log("");
  console.log(
    table(
      ["measure", "runs (s)", "median (s)", "events/s", "÷ baseline"],
      [
        row(
          `baseline: eth_getLogs (${r.chunks} call(s), ≤${LOG_CHUNK_BLOCKS} blocks each) + decodeEventLog`,
          r.scans.map((s) => s.ms),
        ),
        row(
          `baseline + eth_getBlockByNumber(full) of the ${r.blocksWithLogs} blocks with logs`,
          r.blockScans.map((s) => s.ms),
        ),
        [
          "ponder start → /ready, empty history (fixed cost)",
          seconds(r.emptyRuns.map((run) => run.readyMs)),
          fixed(fixedMs / 1000, 2),
          "–",
          "–",
        ],
        ...ponderRows("cold", r.coldRuns, "its backfill phase (Ponder's log)"),
        row(
          "  of which fetching JSON-RPC data",
          r.coldRuns.map((run) => run.fetchMs),
        ),
        ...ponderRows("warm", r.warmRuns, "its backfill phase = indexing only (Ponder's log)"),
      ],
    ),
  );
  const cold = r.coldRuns[0];
  if (cold) {
    const requests = Object.entries(cold.rpc).sort((a, b) => b[1].count - a[1].count);
    const total = requests.reduce((sum, [, entry]) => sum + entry.count, 0);
    const perSecond = cold.fetchMs ? total / (cold.fetchMs / 1000) : Number.NaN;
    console.log(
      `\nPonder's JSON-RPC requests in the first cold run: ${requests
        .map(
          ([method, entry]) =>
            `${entry.count} ${method} (mean ${fixed(entry.totalMs / entry.count)} ms)`,
        )
        .join(", ")}; ${total} in all, ${fixed(perSecond)} per second of fetching.`,
    );
  }
  console.log(
    [
      "",
      `History generated in ${fixed(r.generationMs / 1000, 1)} s. "÷ baseline" is events/s over the eth_getLogs + decode baseline's.`,
      reproduce("bench:indexer:backfill", []),
    ].join("\n"),
  );
}
