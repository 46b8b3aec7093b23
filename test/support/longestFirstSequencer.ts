// Test files start longest first, so that no long file is left to start when the others are done. A
// fresh clone has no durations of vitest's own, so the last full run's are kept in test/durations.json
// (`npm run test:durations` records them anew); a file not recorded there starts first.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const recorded = JSON.parse(
  readFileSync(new URL("../durations.json", import.meta.url), "utf8"),
) as Record<string, number>;

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (spec: TestSpecification) =>
      recorded[relative(spec.project.config.root, spec.moduleId)] ??
      (this.ctx.cache.getTestSpecificationResult(spec)?.duration ?? Number.MAX_SAFE_INTEGER) / 1000;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
