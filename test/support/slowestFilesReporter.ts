// A vitest reporter that ends a run with its slowest test files: where the suite's time goes.
import type { Reporter, TestModule } from "vitest/node";

const SHOWN = 20;

/** A file's own time: importing it and its setup, then its tests and hooks. */
function fileMs(module: TestModule): number {
  const d = module.diagnostic();
  return (
    d.environmentSetupDuration +
    d.prepareDuration +
    d.collectDuration +
    d.setupDuration +
    d.duration
  );
}

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const slowest = modules
      .map((module) => ({
        file: module.relativeModuleId,
        ms: fileMs(module),
        state: module.state(),
      }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN);
    if (slowest.length === 0) return;
    const lines = slowest.map(
      ({ file, ms, state }) =>
        `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}${state === "failed" ? "  (failed)" : ""}`,
    );
    console.log(`\nSlowest ${slowest.length} test files:\n${lines.join("\n")}\n`);
  }
}
