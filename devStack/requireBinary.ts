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
