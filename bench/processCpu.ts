// CPU time of this process's descendants, grouped by what they are (API, Postgres, ...), read from
// /proc: tells which process a load saturates. Linux only; elsewhere every reading is empty.
import { readdirSync, readFileSync } from "node:fs";

/** Kernel clock ticks per second (`getconf CLK_TCK`): 100 on every mainstream Linux build. */
const TICKS_PER_SECOND = 100;

/** CPU seconds so far of each process (this one as pid 0), with its group. */
export type CpuReading = Map<number, { group: string; seconds: number }>;

type ProcStat = { pid: number; ppid: number; cpuSeconds: number };

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: the fields start after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // After the name: state(3) ppid(4) ... utime(14) stime(15), numbered as in proc(5).
    const ppid = Number(fields[1]);
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { pid, ppid, cpuSeconds: ticks / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) process `pid` has spent so far; 0 once it is gone. */
export function processCpuSeconds(pid: number): number {
  return readStat(pid)?.cpuSeconds ?? 0;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\u0000", " ");
  } catch {
    return "";
  }
}

/**
 * CPU seconds (user + system) so far of every live descendant of this process; `classify` names a
 * process's group from its command line, or its pid and parent's (undefined: "other"). This process
 * itself is the group "bench (load generator)".
 */
export function readCpu(
  classify: (commandLine: string, ids: { pid: number; ppid: number }) => string | undefined,
): CpuReading {
  const reading: CpuReading = new Map();
  const self = process.cpuUsage();
  reading.set(0, { group: "bench (load generator)", seconds: (self.user + self.system) / 1e6 });
  let pids: number[];
  try {
    pids = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return reading;
  }
  const stats = pids.map(readStat).filter((stat): stat is ProcStat => stat !== undefined);
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) {
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(stat);
    children.set(stat.ppid, siblings);
  }
  const queue = [...(children.get(process.pid) ?? [])];
  while (queue.length > 0) {
    const stat = queue.shift() as ProcStat;
    queue.push(...(children.get(stat.pid) ?? []));
    const group = classify(commandLine(stat.pid), stat) ?? "other";
    reading.set(stat.pid, { group, seconds: stat.cpuSeconds });
  }
  return reading;
}

/**
 * CPU seconds per group between two readings, of the processes alive at the second: one that
 * exited in between (a Postgres backend whose client left) drops out instead of counting negative.
 */
export function cpuSpent(before: CpuReading, after: CpuReading): Map<string, number> {
  const spent = new Map<string, number>();
  for (const [pid, { group, seconds }] of after) {
    spent.set(group, (spent.get(group) ?? 0) + seconds - (before.get(pid)?.seconds ?? 0));
  }
  return spent;
}

/** What the services of the local stack are, by command line. */
export function classifyService(commandLine: string): string | undefined {
  // Without NATS the API runs as the embedded composition, its workers idle beside it.
  if (commandLine.includes("api/process/server.ts") || commandLine.includes("embedded/main.ts")) {
    return "api";
  }
  if (commandLine.includes("workers/main.ts")) return "worker";
  if (commandLine.includes("helloServer.ts")) return "hello-world";
  if (commandLine.includes("ponder")) return "ponder";
  if (commandLine.includes("nats-server")) return "nats";
  if (commandLine.includes("anvil")) return "anvil";
  if (commandLine.includes("postgres")) return "postgres";
  return undefined;
}
