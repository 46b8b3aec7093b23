// How long each part of a test stack takes to start, the parts every stack test pays for: a
// throwaway Postgres cluster with the app schema, and an API and a Ponder process beside a stack
// already running. `ROUNDS` (5) starts of each, median and spread in ms. Run it on a quiet machine,
// at each commit compared, in one session:
//   npm run build:contracts && node bench/stackParts.ts
import { join } from "node:path";
import { startOnFreePort } from "../devStack/findFreePort.ts";
import { startPostgres } from "../devStack/startPostgres.ts";
import { startStack } from "../devStack/startStack.ts";
import { makeTempDir } from "../devStack/tempDir.ts";
import { migrateAppSchema } from "../lib/db/migrateAppSchema.ts";
import { fixed, table } from "./markdownTable.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 5);

async function timed(start: () => Promise<{ stop: () => Promise<unknown> }>): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const part = await start();
    times.push(performance.now() - started);
    await part.stop();
  }
  return times.sort((a, b) => a - b);
}

const stack = await startStack({ api: 0, ponder: true });
try {
  const parts: [string, number[]][] = [
    [
      "Postgres cluster, app schema migrated",
      await timed(async () => {
        const dataDir = await makeTempDir("stack-parts-postgres");
        const postgres = await startOnFreePort((port) =>
          startPostgres({ port, dataDir: join(dataDir.dir, "postgres"), ephemeral: true }),
        );
        await migrateAppSchema(postgres.databaseUrl);
        return {
          stop: async () => {
            await postgres.stop();
            await dataDir.remove();
          },
        };
      }),
    ],
    ["API process", await timed(() => stack.addApi())],
    ["Ponder process", await timed(() => stack.startIndexer({ supervised: false }))],
  ];
  console.log(
    table(
      ["part", "median ms", "fastest", "slowest"],
      parts.map(([name, times]) => [
        name,
        fixed(times[Math.floor(times.length / 2)] ?? 0, 0),
        fixed(times[0] ?? 0, 0),
        fixed(times.at(-1) ?? 0, 0),
      ]),
    ),
  );
} finally {
  await stack.stop();
}
