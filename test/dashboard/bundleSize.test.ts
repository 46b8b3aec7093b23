// The dashboard's production build keeps its initial JavaScript within budget: what a first visit
// downloads before anything renders, gzip-compressed.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import {
  INITIAL_JAVASCRIPT_BUDGET_BYTES,
  initialJavaScriptGzipBytes,
} from "../../dashboard/initialJavaScript.ts";
import { buildDashboard } from "../support/dashboardBuild.ts";

it("loads at most 300 KB of gzip-compressed JavaScript before the first render", async () => {
  const output = await buildDashboard(mkdtempSync(join(tmpdir(), "dashboard-build-")));
  const bytes = initialJavaScriptGzipBytes(output.output);
  console.log(`dashboard initial JavaScript: ${(bytes / 1024).toFixed(1)} KB gzip`);
  expect(bytes).toBeGreaterThan(0);
  expect(bytes).toBeLessThanOrEqual(INITIAL_JAVASCRIPT_BUDGET_BYTES);
}, 120_000);
