// Every row of every table of the stack's database, in every schema (the indexer's too), as text:
// what a scan for secrets at rest reads.
import { sql } from "drizzle-orm";
import type { Stack } from "../../devStack/startStack.ts";

export type TableDump = { table: string; text: string };

/** Each base table as "schema.name" and its rows as text (a bytea column as hex). */
export async function dumpEveryTable(db: Stack["db"]): Promise<TableDump[]> {
  const tables = (await db.execute(sql`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
  `)) as unknown as { schema: string; name: string }[];
  const dumps: TableDump[] = [];
  for (const { schema, name } of tables) {
    const [dump] = (await db.execute(
      sql`select coalesce(string_agg(t::text, E'\n'), '') as text from ${sql.identifier(schema)}.${sql.identifier(name)} t`,
    )) as unknown as { text: string }[];
    dumps.push({ table: `${schema}.${name}`, text: dump?.text ?? "" });
  }
  return dumps;
}
