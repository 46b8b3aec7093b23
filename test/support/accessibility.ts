// axe-core in a page: its rules run as the page is, with no serious or critical violation allowed.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { expect } from "vitest";

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

type Violation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

export async function expectAccessible(page: Page, what: string) {
  // Evaluated over the DevTools protocol, outside the page's content security policy.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: () => Promise<{ violations: Violation[] }> } }
    ).axe;
    return (await axe.run()).violations;
  });
  const serious = violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => ({
      rule: violation.id,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(" ")),
    }));
  expect(serious, `serious or critical accessibility violations on ${what}`).toEqual([]);
}
