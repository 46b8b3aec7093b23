// `npm start`'s footprint at rest: starts the marketplace on its embedded defaults in a fresh data
// directory, waits for `/readyz`, lets it settle (`SETTLE_SECONDS`, 60 by default), then sums over
// every process it started the CPU time spent over the next `IDLE_SECONDS` (60) and, at their end,
// the proportional set size (PSS: shared pages split between their users), per service. Linux only.
//   npm run build:dashboard && node bench/idleFootprint.ts
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findFreePort } from "../devStack/findFreePort.ts";
import { fixed, table } from "./markdownTable.ts";
import { classifyService, cpuSpent, readCpu } from "./processCpu.ts";

const SETTLE_SECONDS = Number(process.env.SETTLE_SECONDS ?? 60);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 60);
const READY_DEADLINE_MS = 300_000;

/** PSS in bytes of `pid`, from its smaps rollup; 0 when it is gone or not ours to read. */
function pssBytes(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = /^Pss:\s+(\d+) kB$/m.exec(rollup)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

function classify(commandLine: string): string {
  if (commandLine.includes("scripts/start.ts")) return "launcher";
  if (commandLine.includes("demoAgent") || commandLine.includes("vendorEmulator")) return "demo";
  return classifyService(commandLine) ?? "other";
}

async function untilReady(url: string) {
  const deadline = Date.now() + READY_DEADLINE_MS;
  while (Date.now() < deadline) {
    const status = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (answer) => answer.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} not ready within ${READY_DEADLINE_MS / 1000} s`);
}

const dataDir = mkdtempSync(join(tmpdir(), "idle-footprint-"));
const ports = {
  ANVIL_PORT: await findFreePort(),
  POSTGRES_PORT: await findFreePort(),
  PONDER_PORT: await findFreePort(),
  API_PORT: await findFreePort(),
  DEMO_AGENT_PORT: await findFreePort(),
  DEMO_VENDOR_PORT: await findFreePort(),
};
const marketplace = spawn(process.execPath, ["scripts/start.ts"], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    DEPLOYMENT_FILE: join(dataDir, "deployment.json"),
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
  },
  stdio: ["ignore", "ignore", "inherit"],
  detached: true,
});
try {
  await untilReady(`http://127.0.0.1:${ports.API_PORT}/readyz`);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
  const before = readCpu(classify);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const after = readCpu(classify);
  after.delete(0);
  const pss = new Map<string, number>();
  for (const [pid, { group }] of after) pss.set(group, (pss.get(group) ?? 0) + pssBytes(pid));
  const cpu = cpuSpent(before, after);
  const groups = [...pss.keys()].sort((a, b) => (pss.get(b) ?? 0) - (pss.get(a) ?? 0));
  const share = (seconds: number) => `${fixed((100 * seconds) / IDLE_SECONDS, 2)}%`;
  const mb = (bytes: number) => fixed(bytes / 2 ** 20, 0);
  const total = (values: Map<string, number>) => [...values.values()].reduce((a, b) => a + b, 0);
  console.log(
    table(
      ["service", "processes", "PSS (MB)", `CPU over ${IDLE_SECONDS} s idle (% of a core)`],
      [
        ...groups.map((group) => [
          group,
          String([...after.values()].filter((process) => process.group === group).length),
          mb(pss.get(group) ?? 0),
          share(cpu.get(group) ?? 0),
        ]),
        ["**all**", String(after.size), `**${mb(total(pss))}**`, `**${share(total(cpu))}**`],
      ],
    ),
  );
} finally {
  try {
    process.kill(-(marketplace.pid as number), "SIGTERM");
  } catch {}
  await new Promise((resolve) => marketplace.once("exit", resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
