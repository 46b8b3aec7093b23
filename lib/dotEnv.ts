import { existsSync } from "node:fs";

/**
 * Loads `path` (default `.env` in the working directory) into the process's environment, if there is
 * one: a variable the environment already holds keeps its value, so the environment wins over the file.
 */
export function loadDotEnv(path = ".env"): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}
