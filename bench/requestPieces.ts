// What each piece of the fixed per-request work costs: bench/piecesServer.ts with none, one and all
// of them, each a process of its own loaded by the same closed loop, interleaved in rounds, as
// requests a second and CPU microseconds per request of the server, each as a ratio to the bare
// hello-world of the same round. Run: npm run bench:pieces
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { findFreePort } from "../devStack/findFreePort.ts";
import { spawnService, waitUntilReady } from "../devStack/spawnService.ts";
import { loadAverageLine } from "./loadAverage.ts";
import { fixed, table } from "./markdownTable.ts";
import { cpuSpent, readCpu } from "./processCpu.ts";
import { reproduce } from "./reproduce.ts";
import { runBenchmark } from "./runBenchmark.ts";
import { runLoad } from "./runLoad.ts";

const CLIENTS = (process.env.BENCH_CONCURRENCY ?? "10,50").split(",").map(Number);
const MEASURE_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_UP_SECONDS = 1;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PIECES = ["headers", "request id", "access log", "key hash"];
const VARIANTS = [[], ...PIECES.map((piece) => [piece]), PIECES];
/** A key of the API's shape, so the hash is of the length a real one has. */
const BEARER = `Bearer intl_test_${"k".repeat(43)}`;

const labelOf = (pieces: string[]) =>
  pieces.length === 0 ? "hello-world" : pieces.length === 1 ? `+ ${pieces[0]}` : "+ all four";

await runBenchmark(async (cleanup) => {
  const loadBefore = loadavg();
  const script = fileURLToPath(new URL("./piecesServer.ts", import.meta.url));
  /** Per variant and client count: requests a second and CPU µs per request, one entry per round. */
  const results = new Map<string, { rps: number[]; cpuUs: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const pieces of VARIANTS) {
      const port = await findFreePort();
      const { child, service } = spawnService(process.execPath, [script], {
        env: { ...process.env, PORT: String(port), PIECES: pieces.join(",") },
      });
      cleanup.add(labelOf(pieces), () => service.stop());
      const url = `http://127.0.0.1:${port}/`;
      await waitUntilReady(labelOf(pieces), () => fetch(url), { child });
      for (const concurrency of CLIENTS) {
        const load = { url, headers: { authorization: BEARER }, concurrency };
        await runLoad({ ...load, seconds: WARM_UP_SECONDS });
        const before = readCpu((_, { pid }) => (pid === child.pid ? "server" : undefined));
        const measured = await runLoad({ ...load, seconds: MEASURE_SECONDS });
        const after = readCpu((_, { pid }) => (pid === child.pid ? "server" : undefined));
        if (measured.errors > 0) throw new Error(`${labelOf(pieces)}: ${measured.firstError}`);
        const key = `${labelOf(pieces)}@${concurrency}`;
        const entry = results.get(key) ?? { rps: [], cpuUs: [] };
        entry.rps.push(measured.requestsPerSecond);
        entry.cpuUs.push(((cpuSpent(before, after).get("server") ?? 0) / measured.ok) * 1e6);
        results.set(key, entry);
      }
      await service.stop();
    }
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
  const rows = CLIENTS.flatMap((concurrency) => {
    const base = results.get(`hello-world@${concurrency}`);
    return VARIANTS.map((pieces) => {
      const entry = results.get(`${labelOf(pieces)}@${concurrency}`);
      if (!entry || !base) return [];
      // Each round's ratio is to the hello-world of that round.
      const ratios = entry.rps.map((rps, round) => rps / (base.rps[round] ?? rps));
      const extraUs = entry.cpuUs.map((us, round) => us - (base.cpuUs[round] ?? us));
      return [
        labelOf(pieces),
        String(concurrency),
        fixed(median(entry.rps), 0),
        fixed(median(ratios), 2),
        fixed(median(entry.cpuUs)),
        fixed(median(extraUs)),
      ];
    });
  });
  console.log(
    `\n${table(["Server", "Clients", "req/s", "÷ hello-world", "CPU µs per request", "+ µs over hello-world"], rows)}`,
  );
  console.log(`\nMedians of ${ROUNDS} rounds, each ratio and difference taken within its round.`);
  console.log(loadAverageLine(loadBefore, loadavg()));
  console.log(reproduce("bench:pieces", ["BENCH_CONCURRENCY", "BENCH_SECONDS", "BENCH_ROUNDS"]));
});
