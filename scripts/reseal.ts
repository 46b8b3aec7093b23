// Rotates the sealing key: `npm run reseal -- --from <key> --to <key>` seals every sealed row again
// under the new key. A key is a key file (64 hex characters, as DATA_DIR/sealing-key) or env:NAME,
// an environment variable holding one; a missing --to file is created with a new key. Stop the API
// and workers first, and start them with the new key after. Runs again safely after an interruption.
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { z } from "zod/v4";
import type { Service } from "../devStack/spawnService.ts";
import { startPostgres } from "../devStack/startPostgres.ts";
import { loadOrCreateKey, readKeyFile } from "../lib/crypto/keyFile.ts";
import { sealingKeyId } from "../lib/crypto/sealingKeyId.ts";
import { parseSecretKey } from "../lib/crypto/secretBox.ts";
import { migrateAppSchema } from "../lib/db/migrateAppSchema.ts";
import { ENV_FIELDS, envFields, parseEnvironment } from "../lib/env.ts";
import { resealSecrets } from "./resealSecrets.ts";

const USAGE = "usage: npm run reseal -- --from <key file | env:NAME> --to <key file | env:NAME>";

const env = parseEnvironment(
  z.object({
    ...envFields("DATA_DIR", "POSTGRES_PORT"),
    // Unset, the embedded Postgres of `npm start`, which must not be running meanwhile.
    DATABASE_URL: ENV_FIELDS.DATABASE_URL.optional(),
  }),
);

/** A key given as env:NAME or as a key file; never as hex on the command line, where `ps` shows it. */
async function keyOf(given: string, { create }: { create: boolean }): Promise<Buffer> {
  if (given.startsWith("env:")) {
    const name = given.slice("env:".length);
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return parseSecretKey(value);
  }
  if (/^[0-9a-fA-F]{64}$/.test(given)) {
    throw new Error("give the key as a file or env:NAME, not on the command line");
  }
  return create ? loadOrCreateKey(given) : readKeyFile(given);
}

async function main() {
  const { values } = parseArgs({
    options: { from: { type: "string" }, to: { type: "string" } },
    strict: true,
  });
  if (!values.from || !values.to) throw new Error(USAGE);
  const from = await keyOf(values.from, { create: false });
  const to = await keyOf(values.to, { create: true });

  const services: Service[] = [];
  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    const database = await startPostgres({
      port: env.POSTGRES_PORT,
      dataDir: join(env.DATA_DIR, "postgres"),
    });
    services.push(database);
    databaseUrl = database.databaseUrl;
  }
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await migrateAppSchema(databaseUrl);
    const report = await resealSecrets(sql, { from, to });
    console.log(
      `Resealed ${report.resealed} rows from sealing key ${sealingKeyId(from)} to ${sealingKeyId(to)}; ${report.alreadyUnderNewKey} were under it already.`,
    );
    if (report.left.length > 0) {
      console.log(`Not resealed (${report.left.length}):`);
      for (const row of report.left) console.log(`  ${row}`);
      process.exitCode = 1;
    }
  } finally {
    await sql.end();
    for (const service of services) await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
