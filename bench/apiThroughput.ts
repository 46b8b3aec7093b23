// Throughput and latency of the REST API's two hottest reads, GET /v1/listings and
// GET /v1/credentials/:listing_id, at 1, 10 and 50 concurrent clients, beside a plain Hono
// hello-world (the framework's ceiling) loaded the same way in the same run, the API as a process of
// its own over NATS (`npm run api`), as deployed. Run: npm run bench:api
// With BENCH_API_PROCESSES=1,2: GET /v1/credentials/:listing_id from `npm run api` over NATS with
// API_PROCESSES=1 beside API_PROCESSES=2, each an API of its own, in the same run.
import { loadavg } from "node:os";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import { type Address, createPublicClient, type Hex, http, parseEther, toHex } from "viem";
import { hashApiKey } from "../api/auth/apiKeys.ts";
import { findListing, searchListings } from "../api/listings/searchListings.ts";
import { leaseUnits } from "../api/rateLimit/rateLimitLeases.ts";
import { createApiKey } from "../devStack/client/createApiKey.ts";
import { rpcRequest } from "../devStack/startAnvil.ts";
import type { Stack } from "../devStack/startStack.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../lib/contracts/serviceMarketplace.ts";
import { apiKeys } from "../lib/db/appSchema.ts";
import type { Database } from "../lib/db/projections.ts";
import { toApiListingId } from "../lib/ids/listingId.ts";
import { CATEGORIES } from "../lib/marketplace/vocabulary.ts";
import { startBenchStack, UNLIMITED_RATE } from "./benchStack.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { classifyService, cpuSpent, readCpu } from "./processCpu.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { type LoadResult, runLoad } from "./runLoad.ts";
import { type PgActivity, samplePgActivity } from "./samplePgActivity.ts";
import { startHelloServer } from "./startHelloServer.ts";
import { tail } from "./statistics.ts";

const LEVELS = (process.env.BENCH_CONCURRENCY ?? "1,10,50").split(",").map(Number);
const MEASURE_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Per round: each measured part of a row is preceded by a warm-up of its own. */
const WARM_UP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const ROUNDS = 2;
/** API_PROCESSES of each API to compare; unset, the one embedded API of the earlier figures. */
const API_PROCESSES = process.env.BENCH_API_PROCESSES?.split(",").map(Number);
/** Set, the API processes write V8 CPU profiles there as they stop. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const LISTINGS = 100;
const CREATORS = 10;
const SEQUENTIAL_SAMPLES = 300;
const TOPICS = [
  "contract review",
  "tax summaries",
  "code audits",
  "market research",
  "sales outreach",
  "blog drafts",
  "due diligence",
  "test generation",
];

type Target = {
  name: string;
  url: string;
  headers: Record<string, string>;
  expectStatus?: number;
  /** The CPU group of the process (or processes) that serve it. */
  server: string;
};

/** The CPU group of an API compared by API_PROCESSES: its primary and the processes it forked. */
const apiGroup = (processes: number) => `API_PROCESSES=${processes}`;

type Measured = {
  target: string;
  server: string;
  load: LoadResult;
  cores: Map<string, number>;
  /** CPU seconds by process over the row's measured parts. */
  spent: Map<string, number>;
  activity: PgActivity[];
};

function mergeLoads(loads: LoadResult[]): LoadResult {
  const seconds = loads.reduce((sum, load) => sum + load.seconds, 0);
  const ok = loads.reduce((sum, load) => sum + load.ok, 0);
  return {
    concurrency: loads[0]?.concurrency ?? 0,
    ok,
    answered: loads.reduce((sum, load) => sum + load.answered, 0),
    errors: loads.reduce((sum, load) => sum + load.errors, 0),
    firstError: loads.find((load) => load.firstError)?.firstError,
    seconds,
    requestsPerSecond: ok / seconds,
    latencyMs: loads.flatMap((load) => load.latencyMs),
  };
}

await runBenchmark(async (cleanup) => {
  const startedAt = performance.now();
  const stack = await startBenchStack(cleanup, {
    // The API as deployed: a process of its own, its workers elsewhere over NATS.
    api: API_PROCESSES ? 0 : 1,
    ponder: true,
    nats: true,
    rateLimitPerMinute: UNLIMITED_RATE,
    ...(PROFILE_DIR && { env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` } }),
  });
  const compared = API_PROCESSES
    ? await Promise.all(
        API_PROCESSES.map(async (processes) => ({
          processes,
          api: await stack.addApi({ API_PROCESSES: String(processes) }),
        })),
      )
    : [];
  const listingIds = await publishCatalogue(stack);
  // The renter holds a one-time credential on the first listing (rental model 0, price 0.001 ETH).
  const renter = devAccount(5);
  const credentialListing = listingIds[0] as Hex;
  const purchase = await stack.marketplace.mined(
    stack.marketplace
      .as(renter)
      .write.purchaseOneTime([credentialListing], { value: parseEther("0.001") }),
  );
  await stack.ponder.waitForBlock(purchase.blockNumber);
  const api = compared[0]?.api ?? stack.api;
  const { key } = await createApiKey(api.url, renter, "bench");
  const hello = await startHelloServer(cleanup);
  const auth = { authorization: `Bearer ${key}` };

  // The answers the load will repeat, checked once.
  const catalogue = await fetch(`${api.url}/v1/listings`, { headers: auth });
  const catalogueBody = await catalogue.text();
  const page = JSON.parse(catalogueBody) as { total: number; listings: unknown[] };
  if (catalogue.status !== 200 || page.total !== LISTINGS) {
    throw new Error(`GET /v1/listings: ${catalogue.status} ${catalogueBody.slice(0, 300)}`);
  }
  const credentialPath = `/v1/credentials/${toApiListingId(credentialListing)}`;
  let credentialBody = "";
  for (const { url } of compared.length ? compared.map((c) => c.api) : [api]) {
    const credential = await fetch(`${url}${credentialPath}`, { headers: auth });
    credentialBody = await credential.text();
    if (credential.status !== 200 || !(JSON.parse(credentialBody) as { valid: boolean }).valid) {
      throw new Error(`GET ${credentialPath}: ${credential.status} ${credentialBody}`);
    }
  }
  console.log(
    `Stack ready after ${fixed((performance.now() - startedAt) / 1000)} s: ${LISTINGS} listings indexed, API and hello-world up.`,
  );

  const helloTarget = {
    name: "hello-world (ceiling)",
    url: hello.url,
    headers: {},
    server: "hello-world",
  };
  const targets: Target[] = compared.length
    ? [
        helloTarget,
        ...compared.map(({ processes, api }) => ({
          name: `GET /v1/credentials/:listing_id, API_PROCESSES=${processes}`,
          url: `${api.url}${credentialPath}`,
          headers: auth,
          server: apiGroup(processes),
        })),
      ]
    : [
        helloTarget,
        {
          name: "GET /v1/nope (middleware only, 404)",
          url: `${api.url}/v1/nope`,
          headers: auth,
          expectStatus: 404,
          server: "api",
        },
        { name: "GET /v1/listings", url: `${api.url}/v1/listings`, headers: auth, server: "api" },
        {
          name: "GET /v1/credentials/:listing_id",
          url: `${api.url}${credentialPath}`,
          headers: auth,
          server: "api",
        },
      ];
  // Each compared API's processes by pid: its primary, and the processes the primary forked.
  const classify = (commandLine: string, { pid, ppid }: { pid: number; ppid: number }) => {
    const own = compared.find(({ api }) => api.pid === pid || api.pid === ppid);
    return own ? apiGroup(own.processes) : classifyService(commandLine);
  };

  const loadBefore = loadavg();
  const results: Measured[] = [];
  for (const concurrency of LEVELS) {
    const cells = targets.map((target) => ({
      target,
      loads: [] as LoadResult[],
      spent: new Map<string, number>(),
      wallSeconds: 0,
      activity: [] as PgActivity[],
    }));
    // Rounds interleave the targets, so that drift in the machine's load spreads over all of them.
    for (let round = 0; round < ROUNDS; round++) {
      for (const cell of cells) {
        const load = { ...cell.target, concurrency };
        await runLoad({ ...load, seconds: WARM_UP_SECONDS });
        const before = readCpu(classify);
        const from = performance.now();
        const sampler = samplePgActivity(stack.postgres.databaseUrl);
        cell.loads.push(await runLoad({ ...load, seconds: MEASURE_SECONDS / ROUNDS }));
        cell.activity.push(await sampler.stop());
        cell.wallSeconds += (performance.now() - from) / 1000;
        for (const [group, seconds] of cpuSpent(before, readCpu(classify))) {
          cell.spent.set(group, (cell.spent.get(group) ?? 0) + seconds);
        }
      }
    }
    for (const cell of cells) {
      const load = mergeLoads(cell.loads);
      const cores = new Map(
        [...cell.spent].map(([group, seconds]) => [group, seconds / cell.wallSeconds]),
      );
      results.push({
        target: cell.target.name,
        server: cell.target.server,
        load,
        cores,
        spent: cell.spent,
        activity: cell.activity,
      });
      const [p50, , p99] = tail(load.latencyMs);
      console.log(
        `  c=${concurrency} ${cell.target.name}: ${fixed(load.requestsPerSecond, 0)} req/s, p50 ${fixed(p50, 2)} ms, p99 ${fixed(p99, 2)} ms${load.errors ? `, ${load.errors} errors (${load.firstError})` : ""}`,
      );
    }
  }
  const loadAfter = loadavg();

  // Where one request's time goes: its parts, one at a time from this process (no load).
  const parts = await measureParts({
    databaseUrl: stack.postgres.databaseUrl,
    db: stack.db,
    rpcUrl: stack.anvil.rpcUrl,
    marketplace: stack.deployment.address,
    listing: credentialListing,
    renter: renter.address,
    key,
  });

  report({
    results,
    servers: compared.length ? compared.map(({ processes }) => apiGroup(processes)) : ["api"],
    parts,
    loadBefore,
    loadAfter,
    catalogueBytes: Buffer.byteLength(catalogueBody),
    credentialBytes: Buffer.byteLength(credentialBody),
  });
});

/**
 * The catalogue: 10 creators (dev accounts 10 to 19) with 10 listings each, every rental model and
 * category, published as creators do and indexed. Returns the on-chain listing ids in order.
 */
async function publishCatalogue(stack: Stack): Promise<Hex[]> {
  const creators = Array.from({ length: CREATORS }, (_, i) => devAccount(10 + i));
  for (const creator of creators) {
    await rpcRequest(stack.anvil.rpcUrl, "anvil_setBalance", [creator.address, toHex(10n ** 22n)]);
  }
  const listingIds: Hex[] = new Array(LISTINGS);
  // One creator's listings in order (its nonces), the creators side by side.
  await Promise.all(
    creators.map(async (creator, c) => {
      for (let i = c; i < LISTINGS; i += CREATORS) {
        const topic = TOPICS[i % TOPICS.length] as string;
        listingIds[i] = await stack.publishListing({
          creator,
          seed: `api:listing:${i}`,
          model: i % 3,
          price: BigInt(i + 1) * 10n ** 15n,
          manifest: {
            name: `bench-agent-${i}`,
            title: `Bench Agent ${i}: ${topic}`,
            category: CATEGORIES[i % CATEGORIES.length] as string,
            description: `Agent number ${i} for ${topic}, with sources and a summary of every finding, written for busy teams.`,
            sample_output: [`Finding ${i}: nothing unusual in the ${topic}.`],
            creator_display_name: `Creator ${c}`,
          },
        });
      }
    }),
  );
  return listingIds;
}

async function measureParts(options: {
  databaseUrl: string;
  db: Database;
  rpcUrl: string;
  marketplace: Address;
  listing: Hex;
  renter: Address;
  key: string;
}): Promise<[string, number[]][]> {
  const { db } = options;
  const client = createPublicClient({ transport: http(options.rpcUrl) });
  const raw = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  const time = async (run: () => Promise<unknown>) => {
    const samples: number[] = [];
    for (let i = 0; i < SEQUENTIAL_SAMPLES + 20; i++) {
      const started = performance.now();
      await run();
      if (i >= 20) samples.push(performance.now() - started);
    }
    return samples;
  };
  try {
    const keyHash = hashApiKey(options.key);
    return [
      ["Postgres round trip (`select 1`)", await time(() => raw`select 1`)],
      [
        "API-key lookup (identify, on a cache miss)",
        await time(() =>
          db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, keyHash)),
        ),
      ],
      [
        "rate-limit lease (rateLimit, once per block)",
        await time(() =>
          leaseUnits(db, {
            subject: "bench:parts",
            windowStart: 0,
            limit: UNLIMITED_RATE,
            needed: 1,
            wanted: 0,
            seen: null,
            busy: false,
            closing: 0,
          }),
        ),
      ],
      [
        "catalogue query (searchListings, 20 of 100)",
        await time(() => searchListings(db, { sort: "relevance", limit: 20, offset: 0 })),
      ],
      ["listing lookup (findListing)", await time(() => findListing(db, options.listing))],
      [
        "eth_call getAccessState (viem → anvil)",
        await time(() =>
          client.readContract({
            address: options.marketplace,
            abi: serviceMarketplaceAbi,
            functionName: "getAccessState",
            args: [options.listing, options.renter],
          }),
        ),
      ],
    ];
  } finally {
    await raw.end();
  }
}

function report(options: {
  results: Measured[];
  /** The CPU groups of the APIs measured. */
  servers: string[];
  parts: [string, number[]][];
  loadBefore: number[];
  loadAfter: number[];
  catalogueBytes: number;
  credentialBytes: number;
}) {
  const { results } = options;
  const hello = (concurrency: number) =>
    results.find((r) => r.target.startsWith("hello") && r.load.concurrency === concurrency)
      ?.load as LoadResult;
  const servers = API_PROCESSES
    ? `\`npm run api\` over NATS with ${API_PROCESSES.map((n) => `API_PROCESSES=${n}`).join(" and ")}, each an API on a port of its own, all running throughout, and hello-world in a process of its own`
    : "the API and hello-world each in a process of their own";
  console.log(
    `\nAPI throughput: closed-loop autocannon connections from the benchmark process, ${MEASURE_SECONDS} s measured per row in ${ROUNDS} interleaved rounds, each after ${WARM_UP_SECONDS} s of warm-up; ${servers}.\n`,
  );
  console.log(
    table(
      [
        "endpoint",
        "clients",
        "req/s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "errors",
        "÷ hello req/s",
        "p50 × hello",
      ],
      results.map(({ target, load }) => {
        const [p50, p95, p99] = tail(load.latencyMs);
        const ceiling = hello(load.concurrency);
        return [
          target,
          String(load.concurrency),
          fixed(load.requestsPerSecond, 0),
          fixed(p50, 2),
          fixed(p95, 2),
          fixed(p99, 2),
          String(load.errors),
          fixed(load.requestsPerSecond / ceiling.requestsPerSecond, 3),
          fixed(p50 / tail(ceiling.latencyMs)[0], 1),
        ];
      }),
    ),
  );
  const groups = [
    ...options.servers,
    "postgres",
    "anvil",
    ...(API_PROCESSES ? ["nats"] : []),
    "bench (load generator)",
    "hello-world",
    "ponder",
  ];
  console.log(
    "\nCPU used while each row's measured parts ran (cores, of 2), by process, and CPU milliseconds per request:\n",
  );
  const perRequest = (spent: Map<string, number>, group: string, load: LoadResult) =>
    fixed((1000 * (spent.get(group) ?? 0)) / load.answered, 2);
  console.log(
    table(
      ["endpoint", "clients", ...groups, "ms/req server", "ms/req postgres", "ms/req bench"],
      results.map(({ target, server, load, cores, spent }) => [
        target,
        String(load.concurrency),
        ...groups.map((group) => fixed(cores.get(group) ?? 0, 2)),
        perRequest(spent, server, load),
        perRequest(spent, "postgres", load),
        perRequest(spent, "bench (load generator)", load),
      ]),
    ),
  );
  console.log(
    "\nThe API's Postgres backends (pool of 10) while each row ran, sampled from pg_stat_activity every 25 ms:\n",
  );
  console.log(
    table(
      [
        "endpoint",
        "clients",
        "mean active",
        "waiting on locks",
        "top wait events (share of active)",
      ],
      results
        .filter(({ target }) => !target.startsWith("hello"))
        .map(({ target, load, activity }) => {
          const samples = activity.reduce((sum, a) => sum + a.samples, 0);
          const active = activity.reduce((sum, a) => sum + a.meanActive * a.samples, 0);
          const locked = activity.reduce(
            (sum, a) => sum + a.lockShare * a.meanActive * a.samples,
            0,
          );
          return [
            target,
            String(load.concurrency),
            fixed(active / samples, 2),
            `${fixed(active ? (100 * locked) / active : 0, 0)}%`,
            activity.map((a) => a.topWaits).join(" | "),
          ];
        }),
    ),
  );
  console.log("\nParts of a request, one at a time from the benchmark process, no load (ms):\n");
  console.log(
    table(
      ["part", "p50", "p95", "p99"],
      options.parts.map(([name, samples]) => [name, ...tail(samples).map((v) => fixed(v, 2))]),
    ),
  );
  console.log(
    [
      "",
      `Response bodies: GET /v1/listings ${options.catalogueBytes} bytes (20 of ${LISTINGS} listings), GET /v1/credentials/:listing_id ${options.credentialBytes} bytes.`,
      loadAverageLine(options.loadBefore, options.loadAfter),
      ...processesCompared(results),
      reproduce("bench:api", [
        "BENCH_SECONDS",
        "BENCH_CONCURRENCY",
        "BENCH_WARMUP_SECONDS",
        "BENCH_API_PROCESSES",
        "BENCH_PROFILE_DIR",
      ]),
    ].join("\n"),
  );
}

/** Per client count, each compared API's throughput over that of the first (API_PROCESSES=1). */
function processesCompared(results: Measured[]): string[] {
  if (!API_PROCESSES) return [];
  const [first, ...others] = API_PROCESSES.map(apiGroup);
  return LEVELS.map((concurrency) => {
    const rate = (server: string | undefined) =>
      results.find((r) => r.server === server && r.load.concurrency === concurrency)?.load
        .requestsPerSecond ?? Number.NaN;
    const ratios = others.map(
      (other) => `${other} ÷ ${first}: ${fixed(rate(other) / rate(first), 2)}`,
    );
    return `${concurrency} clients: ${ratios.join(", ")}.`;
  });
}
