import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/support/longestFirstSequencer.ts";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    // test/scale/ runs on its own (`npm run test:scale`, vitest.scale.config.ts).
    exclude: ["node_modules/**", "contracts/**", ".data/**", "test/scale/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The default report, then the slowest files (test/support/slowestFilesReporter.ts).
    reporters: ["default", "./test/support/slowestFilesReporter.ts"],
    pool: "forks",
    // A cross-process test file spends most of its time waiting on its servers, so several run at
    // once even on two cores (vitest's default there is one at a time).
    maxWorkers: 3,
    // Longest files first, by the durations of test/durations.json.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
