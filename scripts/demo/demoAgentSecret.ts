import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The demo connected agent's webhook secret, as its registration returned it (mode 0600). */
function secretFile(dataDir: string): string {
  return join(dataDir, "demo-agent-webhook-secret");
}

export async function saveDemoAgentSecret(dataDir: string, secret: string): Promise<void> {
  await writeFile(secretFile(dataDir), secret, { mode: 0o600 });
}

/** The secret, or undefined before the demo catalogue was seeded with one. */
export async function readDemoAgentSecret(dataDir: string): Promise<string | undefined> {
  try {
    return (await readFile(secretFile(dataDir), "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
