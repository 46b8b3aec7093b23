// The app schema's migrations applied to a database that already holds rows, on a real Postgres: a
// database migrated as an early release left it (through 0004) holds an agent, its sealed part, a
// finished run and a rate-limit window; the later migrations keep every row, fill what they add
// (the window's count becomes `granted`, the agent's registered version, the run's output flags,
// the search columns), and a second pass changes nothing.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrateAppSchema } from "../../lib/db/migrateAppSchema.ts";
import { useStack } from "../support/useStack.ts";

const MIGRATIONS = fileURLToPath(new URL("../../lib/db/migrations", import.meta.url));
/** The migrations an early release had applied: 0000 to 0004. */
const EARLY_RELEASE = 5;
const LISTING = `0x${"ab".repeat(32)}`;
const METADATA_URI = "ipfs://bafkreiearlyreleaseagent";

const stack = useStack({ chain: false, postgres: true });
let databaseUrl: string;
let sql: postgres.Sql;

/** The migrations folder as it stood with only the first `count` migrations. */
function migrationsUpTo(count: number): { folder: string; remove: () => void } {
  const folder = mkdtempSync(join(tmpdir(), "early-migrations-"));
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8"));
  journal.entries = journal.entries.slice(0, count);
  writeFileSync(journalFile, JSON.stringify(journal));
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

beforeAll(async () => {
  const admin = postgres(stack().postgres.databaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe("create database early_release");
  await admin.end();
  const url = new URL(stack().postgres.databaseUrl);
  url.pathname = "/early_release";
  databaseUrl = url.toString();
  sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });

  const early = migrationsUpTo(EARLY_RELEASE);
  try {
    await migrate(drizzle(sql), { migrationsFolder: early.folder });
  } finally {
    early.remove();
  }
  await sql`insert into app.agents (agent_id, on_chain_listing_id, creator, title, description,
      category, sample_output, creator_display_name, metadata_uri, public_manifest)
    values ('tide-reader-00000001', ${LISTING}, ${`0x${"c0".repeat(20)}`}, 'Tide Reader',
      'Reads the tides', 'research', ${JSON.stringify(["High water at noon."])}::jsonb, 'Harbour Labs',
      ${METADATA_URI}, ${JSON.stringify({ name: "tide-reader", output_schema: { type: "string" } })}::jsonb)`;
  await sql`insert into app.agent_secrets (on_chain_listing_id, sealed, sealing_key_id)
    values (${LISTING}, ${Buffer.from("sealed bytes")}, 'key-1')`;
  await sql`insert into app.runs (id, on_chain_run_id, wallet, on_chain_listing_id, rental_model,
      priority, status, charge, reserved_wei, cost_wei, request_hash, output, logged, finished_at)
    values ('run_early', 1, ${`0x${"d0".repeat(20)}`}, ${LISTING}, 'per_query', 'standard',
      'completed', 'debited', 1000, 1000, 'hash', ${JSON.stringify("High water at noon.")}::jsonb, true, now())`;
  await sql`insert into app.rate_limit_windows (subject, window_start, count)
    values ('wallet:0xd0', 29000000, 7)`;
});
afterAll(async () => {
  await sql?.end();
});

it("keeps every row and fills what the later migrations add", async () => {
  await migrateAppSchema(databaseUrl);

  const [window] = await sql`select granted, outstanding from app.rate_limit_windows`;
  expect(window).toEqual({ granted: 7, outstanding: 0 });
  const [agent] = await sql`select title, search_names from app.agents
    where search_document @@ to_tsquery('english', 'tides')`;
  expect(agent).toEqual({
    title: "Tide Reader",
    search_names: "Tide Reader Harbour Labs research",
  });
  const versions = await sql`select id, metadata_uri, public_manifest, sealed
    from app.agent_versions where on_chain_listing_id = ${LISTING}`;
  expect(versions).toEqual([
    {
      id: `${LISTING}/bafkreiearlyreleaseagent`,
      metadata_uri: METADATA_URI,
      public_manifest: { name: "tide-reader", output_schema: { type: "string" } },
      sealed: null,
    },
  ]);
  const [secret] = await sql`select sealed, sealing_key_id from app.agent_secrets`;
  expect(secret).toEqual({ sealed: Buffer.from("sealed bytes"), sealing_key_id: "key-1" });
  const [run] = await sql`select status, charge, cost_wei, output, output_truncated, output_sha256
    from app.runs where id = 'run_early'`;
  expect(run).toEqual({
    status: "completed",
    charge: "debited",
    cost_wei: "1000",
    output: "High water at noon.",
    output_truncated: false,
    output_sha256: null,
  });
});

it("changes nothing when applied again", async () => {
  const before = await sql`select * from app.agent_versions order by id`;
  await migrateAppSchema(databaseUrl);
  expect(await sql`select * from app.agent_versions order by id`).toEqual(before);
  const [runs] = await sql`select count(*)::int as count from app.runs`;
  expect(runs?.count).toBe(1);
});
