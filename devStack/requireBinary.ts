import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** The absolute path of `name` on PATH, or an error that names the command installing it. */
export function requireBinary(name: string, installCommand: string): string {
  const path = findBinary(name);
  if (!path) throw new Error(`${name} was not found on PATH; install it with: ${installCommand}`);
  return path;
}

export function findBinary(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * The path of `binary`, installing Debian's `debianPackage` with apt-get when it is missing and this
 * process may (root); otherwise an error naming the command to run.
 */
export function ensureDebianBinary(binary: string, debianPackage: string): string {
  const existing = findBinary(binary);
  if (existing) return existing;
  const command = `apt-get update && apt-get install -y ${debianPackage}`;
  if (process.getuid?.() !== 0) {
    throw new Error(`${binary} was not found on PATH; install it with: ${command}`);
  }
  console.warn(`${binary} is missing; installing it as root: ${command}`);
  execFileSync("sh", ["-c", `${command} >/dev/null`], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  const installed = findBinary(binary);
  if (!installed) throw new Error(`${binary} is still missing after: ${command}`);
  return installed;
}
