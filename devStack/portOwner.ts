// Who listens on a loopback port, read from /proc: a service's readiness probe may be answered by
// another process that took its port, and only the kernel's tables tell the two apart.
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

const LISTEN = "0A";

/** Whether this system shows its sockets in /proc (Linux); elsewhere no listener can be told apart. */
export const portOwnersKnown = existsSync("/proc/net/tcp");

/** The socket inodes listening on `port` (any address, IPv4 or IPv6). */
function listeningInodes(port: number): Set<string> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.trim().split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === LISTEN && fields[9]) {
        inodes.add(fields[9]);
      }
    }
  }
  return inodes;
}

/** The process group of `pid` (from /proc/<pid>/stat), or undefined once it is gone. */
function processGroupOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After "(command) ": state, ppid, pgrp.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined;
  }
}

/** Whether a process of process group `group` holds a socket listening on `port`. */
export function listensInGroup(port: number, group: number): boolean {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return false;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    if (processGroupOf(pid) !== group) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (socket?.[1] && inodes.has(socket[1])) return true;
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  }
  return false;
}

/** Whether anything listens on `port`. */
export function isListenedOn(port: number): boolean {
  return listeningInodes(port).size > 0;
}
