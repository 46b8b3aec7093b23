// `npm run test:durations`: keeps in test/durations.json how long each test file took in vitest's
// last run of it (its own cache), for test/support/longestFirstSequencer.ts. Run it after a full
// `npm test`, whose durations are those of files sharing the machine as they do in CI.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cacheDir = join(root, "node_modules/.vite/vitest");
type Results = { projects: Record<string, { files: Record<string, { duration: number }> }> };

const seconds: Record<string, number> = {};
for (const dir of existsSync(cacheDir) ? readdirSync(cacheDir) : []) {
  const file = join(cacheDir, dir, "results.json");
  if (!existsSync(file)) continue;
  const results = JSON.parse(readFileSync(file, "utf8")) as Results;
  for (const project of Object.values(results.projects)) {
    for (const [path, { duration }] of Object.entries(project.files)) {
      if (existsSync(join(root, path))) seconds[path] = Math.round(duration / 100) / 10;
    }
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(join(root, "test/durations.json"), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`recorded ${Object.keys(sorted).length} test files' durations in test/durations.json`);
