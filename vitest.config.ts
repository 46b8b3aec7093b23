import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    // test/scale/ runs on its own (`npm run test:scale`, vitest.scale.config.ts).
    exclude: ["node_modules/**", "contracts/**", ".data/**", "test/scale/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // A cross-process test file spends most of its time waiting on its servers, so several run at
    // once even on two cores (vitest's default there is one at a time).
    maxWorkers: 3,
  },
});
