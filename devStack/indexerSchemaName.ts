import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Deployment } from "../lib/chain/deployMarketplace.ts";

const projectRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * The schema one build of the indexer writes into: a digest of its code and of the deployment it
 * follows. A restart of the same build resumes there; a changed build re-indexes into a fresh schema
 * while readers keep the views schema, which Ponder points at the new one once it is ready.
 */
export function indexerSchemaName(deployment: Deployment): string {
  const hash = createHash("sha256");
  const files = ["ponder.config.ts", "ponder.schema.ts", ...sourceFiles("src")];
  for (const file of files) hash.update(file).update(readFileSync(join(projectRoot, file)));
  hash.update(`${deployment.chainId}:${deployment.address}:${deployment.transactionHash}`);
  return `indexer_${hash.digest("hex").slice(0, 12)}`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(projectRoot, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath.slice(projectRoot.length), entry.name))
    .sort();
}
