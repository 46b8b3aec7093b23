// A newcomer's first run in the dashboard, on the demo catalogue as `npm start` seeds it: find the
// Solidity Contract Auditor, rent tasks of it, run it in the playground on a vault with a reentrancy
// bug, and read the finding with its lines. With UPDATE_SCREENSHOTS=1 the catalogue, listing and
// playground screenshots of the README are written from this run.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { VULNERABLE_VAULT } from "../../scripts/demo/sampleVaults.ts";
import { newWallet } from "../settlement/settlementFixtures.ts";
import { expectAccessible } from "../support/accessibility.ts";
import { launchBrowser, screenshotPath } from "../support/browser.ts";
import { buildDashboard } from "../support/dashboardBuild.ts";
import { type DemoCatalogue, startDemoCatalogue } from "../support/demoCatalogueOnStack.ts";
import { injectWallet } from "../support/injectedWallet.ts";
import { useStack } from "../support/useStack.ts";

const dashboardDir = mkdtempSync(join(tmpdir(), "dashboard-"));
const screenshots = mkdtempSync(join(tmpdir(), "demo-screenshots-"));
const stack = useStack({ api: 0, ponder: true });
let demo: DemoCatalogue;
let browser: Browser;

beforeAll(async () => {
  await buildDashboard(dashboardDir);
  demo = await startDemoCatalogue(stack(), { DASHBOARD_DIR: dashboardDir });
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: screenshotPath(screenshots, name), fullPage: true });

it("rents the demo auditor and runs it on a vulnerable vault: the playground shows the reentrancy on its lines", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await injectWallet(page, await newWallet(stack()), stack().anvil.rpcUrl);
  await page.goto(`${demo.api.url}/`);
  await page.getByRole("main").getByRole("button", { name: "Connect browser wallet" }).click();
  await page.getByRole("button", { name: "Sign in with wallet" }).click();
  await page.getByRole("heading", { name: "Catalogue" }).waitFor();

  const card = page.getByRole("link", { name: "Solidity Contract Auditor" });
  await card.waitFor();
  await page.getByRole("link", { name: "Daily Market Brief" }).waitFor();
  await screenshot(page, "catalogue.png");
  await card.click();

  await page.getByRole("heading", { name: "Solidity Contract Auditor" }).waitFor();
  await page.getByLabel(/Deposit \(ETH\)/).fill("0.0015");
  await page.getByRole("button", { name: "Rent for 0.0015 ETH" }).click();
  await page.getByText("Done: the marketplace has indexed the transaction.").waitFor();
  await screenshot(page, "listing.png");

  await page.getByRole("link", { name: "Run a task in the playground" }).click();
  await page.getByRole("heading", { name: "Playground" }).waitFor();
  await page.getByRole("textbox", { name: "Task" }).fill("Audit this vault before we deploy it");
  await page.getByLabel("source (required)").fill(VULNERABLE_VAULT);
  await page.getByRole("button", { name: "Run task" }).click();
  await page.getByRole("term").filter({ hasText: "Cost" }).waitFor();
  const output = JSON.parse((await page.getByTestId("run-output").textContent()) ?? "");
  expect(output).toEqual({
    findings: [
      expect.stringMatching(
        /^High: reentrancy in withdraw\(\): line 14 makes an external call .* before line 16 updates balances/,
      ),
    ],
  });
  const cost = page.getByLabel("Run result").getByRole("definition").filter({ hasText: "ETH" });
  expect(await cost.textContent()).toBe("0.0005 ETH");
  await expectAccessible(page, "the playground after a demo run");
  await screenshot(page, "playground.png");
  await context.close();
}, 180_000);
