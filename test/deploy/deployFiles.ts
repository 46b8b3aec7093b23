// The files of deploy/ as docs/deploy.md has an operator fill them in and install them, read the way
// systemd reads them, with what names the doc's machines (hosts, ports, paths) replaced by a test's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

export const root = fileURLToPath(new URL("../../", import.meta.url));
/** Where the doc installs the checkout and its environment files. */
export const INSTALL_DIR = "/opt/agent-marketplace";
export const CONFIG_DIR = "/etc/agent-marketplace";

type Pairs = [string, string][];

/** The `KEY=value` lines of an environment file, in order, comments left out. */
function envLines(text: string): Pairs {
  return text
    .split("\n")
    .filter((line) => !line.startsWith("#") && line.includes("="))
    .map((line) => {
      const at = line.indexOf("=");
      return [line.slice(0, at), line.slice(at + 1)];
    });
}

/**
 * `deploy/<name>` filled in as the doc says: each empty value from `filled`, which fills nothing else;
 * `local` replaces values that name the doc's machines. Neither may name a variable the file lacks.
 */
export function fillEnvFile(
  name: string,
  filled: Record<string, string>,
  local: Record<string, string> = {},
): Record<string, string> {
  const lines = envLines(readFileSync(join(root, "deploy", name), "utf8"));
  const listed = new Set(lines.map(([key]) => key));
  const unlisted = [...Object.keys(filled), ...Object.keys(local)].filter(
    (key) => !listed.has(key),
  );
  expect(unlisted, `variables deploy/${name} does not list`).toEqual([]);
  const env: Record<string, string> = {};
  for (const [key, value] of lines) {
    if (value === "") {
      const value = filled[key];
      expect(value, `${key}, left empty in deploy/${name}, is filled`).toBeDefined();
      env[key] = value ?? "";
    } else {
      expect(filled[key], `${key} has a value in deploy/${name}`).toBeUndefined();
      env[key] = local[key] ?? value;
    }
  }
  return env;
}

export function envFileText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([key, value]) => `${key}=${value}\n`)
    .join("");
}

export type Unit = {
  workingDirectory: string;
  /** The ExecStart command line, split on spaces. */
  command: string;
  args: string[];
  /** EnvironmentFile= names, relative to the config directory. */
  environmentFiles: string[];
  /** Environment= assignments. */
  environment: Record<string, string>;
};

/** `deploy/systemd/<name>`'s [Service] settings this deployment uses. */
export function readUnit(name: string): Unit {
  const lines = envLines(readFileSync(join(root, "deploy/systemd", name), "utf8"));
  const all = (key: string) => lines.filter(([k]) => k === key).map(([, value]) => value);
  const [command = "", ...args] = (all("ExecStart")[0] ?? "").split(" ");
  return {
    workingDirectory: all("WorkingDirectory")[0] ?? "/",
    command,
    args,
    environmentFiles: all("EnvironmentFile").map((file) => {
      expect(file.startsWith(`${CONFIG_DIR}/`), file).toBe(true);
      return file.slice(CONFIG_DIR.length + 1);
    }),
    environment: Object.fromEntries(all("Environment").flatMap((value) => envLines(value))),
  };
}

/** A path of the installed checkout, as a path of this one. */
export function inCheckout(path: string): string {
  if (path === INSTALL_DIR) return root;
  return path.startsWith(`${INSTALL_DIR}/`) ? join(root, path.slice(INSTALL_DIR.length + 1)) : path;
}
