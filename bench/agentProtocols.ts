// What the agent protocols add to a run: the same task on the echo agent (a connected agent that
// answers at once), on a one-time credential, through POST /v1/execute, A2A `message/send` and MCP
// `tools/call`, from one embedded API process of one stack. One request at a time on a keep-alive
// connection, the three taking turns in blocks (in a rotating order), so that the machine's drift
// weighs on each alike; each request timed at the client, from its send to its whole answer, and
// each block's CPU time of the serving process read from /proc.
// A second process, started first, leads the settlement, so the measured one logs no run on chain.
// Run: npm run bench:protocols
import { loadavg } from "node:os";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { ensureDevCertificates } from "../devStack/devCertificates.ts";
import { toApiListingId } from "../lib/ids/listingId.ts";
import { startBenchStack, UNLIMITED_RATE } from "./benchStack.ts";
import { setUpExecution } from "./executionFixture.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { processCpuSeconds } from "./processCpu.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { startEchoAgent } from "./startEchoAgent.ts";
import { percentile } from "./statistics.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);
const WARM_UP = Number(process.env.BENCH_WARMUP_REQUESTS ?? 50);
/** Requests of one protocol in a row, between two readings of the serving process's CPU time. */
const BLOCK = 25;
/** The goal: a protocol adds at most this many milliseconds at p50 to `POST /v1/execute`. */
const GOAL_MS = 2;

type Call = (n: number) => Promise<void>;

/** Sends `init` to `url` and reads the whole answer; an answer that is not a completed run throws. */
async function expectRun(url: string, init: RequestInit, completed: (body: string) => boolean) {
  const response = await fetch(url, init);
  const body = await response.text();
  if (response.status !== 200 || !completed(body)) {
    throw new Error(`${url} answered ${response.status}: ${body.slice(0, 300)}`);
  }
}

await runBenchmark(async (cleanup) => {
  const loadBefore = loadavg();
  const stack = await startBenchStack(cleanup, {
    api: 0,
    ponder: true,
    rateLimitPerMinute: UNLIMITED_RATE,
    env: { EXECUTION_RATE_LIMIT_PER_MINUTE: String(UNLIMITED_RATE) },
  });
  const echo = await startEchoAgent(await ensureDevCertificates(stack.dir));
  cleanup.add("echo agent", echo.stop);
  // Started first, it takes the settlement's lead and keeps it.
  await stack.addApi();
  const api = await stack.addApi();
  const fixture = await setUpExecution(stack, echo, 1);
  const agentId = toApiListingId(fixture.listings["one-time"]);
  const headers = {
    authorization: `Bearer ${fixture.keys[0]}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
  };
  const post = (body: unknown): RequestInit => ({
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  const input = { text: "hello" };

  const calls: Record<string, Call> = {
    "POST /v1/execute": (n) =>
      expectRun(
        `${api.url}/v1/execute`,
        post({ agent_id: agentId, task: `task ${n}`, input }),
        (body) => body.includes('"status":"completed"'),
      ),
    "A2A message/send": (n) =>
      expectRun(
        `${api.url}/a2a/${agentId}`,
        post({
          jsonrpc: "2.0",
          id: n,
          method: "message/send",
          params: {
            message: {
              kind: "message",
              role: "user",
              messageId: `bench-${process.pid}-${n}`,
              parts: [
                { kind: "text", text: `task ${n}` },
                { kind: "data", data: input },
              ],
            },
          },
        }),
        (body) => body.includes('"state":"completed"'),
      ),
    "MCP tools/call": (n) =>
      expectRun(
        `${api.url}/mcp`,
        post({
          jsonrpc: "2.0",
          id: n,
          method: "tools/call",
          params: { name: "echo-one-time", arguments: { task: `task ${n}`, input } },
        }),
        (body) => body.includes('"result"') && !body.includes('"isError":true'),
      ),
  };

  const names = Object.keys(calls);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const cpuMs: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  let n = 0;
  for (let round = 0; round < (WARM_UP + REQUESTS) / BLOCK; round++) {
    const measured = round * BLOCK >= WARM_UP;
    // Rotating, so that none is always the first after another's block.
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length] as string;
      const cpuBefore = processCpuSeconds(api.pid);
      for (let i = 0; i < BLOCK; i++) {
        const started = performance.now();
        await (calls[name] as Call)(n++);
        if (measured) samples[name]?.push(performance.now() - started);
      }
      if (measured)
        cpuMs[name] = (cpuMs[name] ?? 0) + (processCpuSeconds(api.pid) - cpuBefore) * 1000;
    }
  }

  const baseline = "POST /v1/execute";
  const p50Of = (name: string) => percentile(samples[name] ?? [], 50);
  const cpuPerRequest = (name: string) => (cpuMs[name] ?? 0) / (samples[name]?.length ?? 1);
  const rows = names.map((name) => {
    const times = samples[name] ?? [];
    const added = (of: (name: string) => number) =>
      name === baseline ? "–" : fixed(of(name) - of(baseline), 2);
    return [
      name,
      fixed(p50Of(name), 2),
      fixed(percentile(times, 95), 2),
      fixed(percentile(times, 99), 2),
      added(p50Of),
      fixed(cpuPerRequest(name), 2),
      added(cpuPerRequest),
    ];
  });
  console.log(
    [
      `The echo agent on a one-time credential, ${REQUESTS} requests each after ${WARM_UP} of warm-up, one at a time, the protocols taking turns in blocks of ${BLOCK}; latency in ms at the client, CPU of the serving process (its workers included) per request.`,
      "",
      table(["", "p50", "p95", "p99", "added at p50", "API CPU ms/request", "added CPU ms"], rows),
      "",
      `Goal: at most ${GOAL_MS} ms added at p50.`,
      loadAverageLine(loadBefore, loadavg()),
      reproduce("bench:protocols", ["BENCH_REQUESTS", "BENCH_WARMUP_REQUESTS"]),
    ].join("\n"),
  );
});
