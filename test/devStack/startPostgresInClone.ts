// Run inside a copy of the project: starts its Postgres on the data directory given, leaves a note
// for the next run, prints what it found as JSON and stops.
import { readlink } from "node:fs/promises";
import postgres from "postgres";
import { startPostgres } from "../../devStack/startPostgres.ts";

const [port, dataDir, note] = process.argv.slice(2);
if (!port || !dataDir || !note)
  throw new Error("usage: startPostgresInClone.ts <port> <dataDir> <note>");

const server = await startPostgres({ port: Number(port), dataDir });
const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
try {
  await sql`create table if not exists note (text text not null)`;
  const [earlier] = await sql<{ text: string }[]>`select text from note`;
  await sql`insert into note values (${note})`;
  const [backend] = await sql<{ dataDirectory: string; pid: number }[]>`
    select current_setting('data_directory') as "dataDirectory", pg_backend_pid() as pid`;
  if (!backend) throw new Error("the server did not describe itself");
  console.log(
    JSON.stringify({
      earlierNote: earlier?.text ?? null,
      dataDirectory: backend.dataDirectory,
      serverBinary: await readlink(`/proc/${backend.pid}/exe`),
    }),
  );
} finally {
  await sql.end();
  await server.stop();
}
