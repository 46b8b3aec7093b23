// `npm run test:scale`: the scale-out stack (3 API processes, 2 workers, a 3-node NATS cluster) under
// load and faults, and the indexer's bound after freezes, which is a time measured on the machine.
// One file at a time: each starts a dozen processes, or times its stack, on a machine of few cores.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/scale/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    // The default report, then the slowest files (test/support/slowestFilesReporter.ts).
    reporters: ["default", "./test/support/slowestFilesReporter.ts"],
    pool: "forks",
    maxWorkers: 1,
  },
});
