import { join } from "node:path";
import { loadOrCreateKey } from "./keyFile.ts";
import { parseSecretKey } from "./secretBox.ts";

/** SEALING_KEY, or the key generated once in DATA_DIR: the API and workers must agree on it. */
export function sealingKey(env: { SEALING_KEY?: string; DATA_DIR: string }): Promise<Buffer> {
  if (env.SEALING_KEY) return Promise.resolve(parseSecretKey(env.SEALING_KEY));
  return loadOrCreateKey(join(env.DATA_DIR, "sealing-key"));
}
