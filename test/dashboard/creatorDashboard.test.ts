// A creator's side of the dashboard in a real Chromium against the real stack, its declarative
// agents answered by the vendor emulator: registering an OpenAI agent with the creator's own key
// (sent once, never kept by the page), listing and re-pricing it, a renter reading its structured
// output field by field, a new version made current, the renter's run history page by page, and
// the creator's chart of runs per day. axe-core checks every page visited; with
// UPDATE_SCREENSHOTS=1 the pages' screenshots are written into docs/screenshots.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { formatEther, type Hex, parseEther } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import { newWallet } from "../settlement/settlementFixtures.ts";
import { expectAccessible } from "../support/accessibility.ts";
import { launchBrowser } from "../support/browser.ts";
import { type PerTaskListing, perTaskRenter, type Renter } from "../support/connectedListing.ts";
import { buildDashboard } from "../support/dashboardBuild.ts";
import {
  connectAndSignIn,
  DONE,
  focusedElement,
  openDashboard,
  SITE_NAME,
  screenshot,
} from "../support/dashboardPages.ts";
import { useStack } from "../support/useStack.ts";

const dashboardDir = mkdtempSync(join(tmpdir(), "dashboard-"));
const screenshots = mkdtempSync(join(tmpdir(), "dashboard-screenshots-"));
const stack = useStack({ api: 0, ponder: true, rateLimitPerMinute: 10_000 });

const MODEL = "model-dashboard-auditor";
const VENDOR_KEY = "sk-dashboard-first-0123456789abcdef";
const SECOND_VENDOR_KEY = "sk-dashboard-second-0123456789abcdef";
const TITLE = "Vendor Keyed Auditor";
const OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    summary: { type: "string", title: "Summary" },
    findings: { type: "array", items: { type: "string" }, title: "Findings" },
    severity: { type: "number" },
  },
  required: ["summary", "findings", "severity"],
};
const AUDIT = {
  summary: "One reentrancy in Vault.withdraw",
  findings: ["line 12: external call before the balance is zeroed", "line 30: no event"],
  severity: 8.5,
};
const FIRST_PRICE = parseEther("0.001");
const NEW_PRICE = parseEther("0.002");

let servers: ModelServers;
let browser: Browser;
let creator: PrivateKeyAccount;
let listing: PerTaskListing;
let renter: Renter;

beforeAll(async () => {
  servers = await startModelServers(stack());
  await stack().addApi({ ...servers.env, DASHBOARD_DIR: dashboardDir });
  await buildDashboard(dashboardDir);
  browser = await launchBrowser();
  creator = await newWallet(stack());
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await servers?.stop();
});

/** The listing card titled `title` on My listings. */
const myListingCard = (page: Page, title: string) =>
  page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title }) });

/** What the page keeps beyond its memory: storage and cookies, as one text. */
const keptByThePage = (page: Page) =>
  page.evaluate("JSON.stringify([localStorage, sessionStorage, document.cookie])");

/** The vendor API keys the emulator received for the agent's model, in order. */
const keysSent = () =>
  servers.vendor.requests.filter((request) => request.model === MODEL).map((r) => r.apiKey);

const runAsRenter = (task = "Audit the vault") =>
  renter.api.post("/v1/execute", { agent_id: listing.agentId, task, input: {} });

describe("a creator in the dashboard", () => {
  it("registers an OpenAI agent with its own key, lists it, re-prices it, and the catalogue shows the new price", async () => {
    const { page, close } = await openDashboard(browser, stack(), creator, { path: "/register" });
    await connectAndSignIn(page, "Register an agent");
    await page.getByLabel("Name").fill("vendor-keyed-auditor");
    await page.getByLabel("Description").fill("Audits contracts on the creator's own OpenAI key");
    const model = page.getByLabel("Model (JSON)");
    await model.fill(JSON.stringify({ provider: "self_hosted", endpoint_url: "https://x.test" }));
    expect(await page.getByLabel("OpenAI API key").count(), "no key for a self-hosted model").toBe(
      0,
    );
    await model.fill(JSON.stringify({ provider: "openai", model: MODEL }));
    const key = page.getByLabel("OpenAI API key");
    await key.fill(VENDOR_KEY);
    expect(await key.getAttribute("type")).toBe("password");
    await page.getByLabel("System prompt").fill("You audit Solidity contracts.");
    await page.getByLabel("Output schema (JSON Schema)").fill(JSON.stringify(OUTPUT_SCHEMA));
    await expectAccessible(page, "the registration with a vendor key");
    await screenshot(page, screenshots, "register-vendor-key.png");

    await page.getByRole("button", { name: "Register" }).click();
    await page.getByRole("heading", { name: "Registered: now list it" }).waitFor();
    // The key went with the manifest and is gone from the page: not in a field, not stored.
    expect(await key.inputValue()).toBe("");
    expect(await page.content()).not.toContain(VENDOR_KEY);
    expect(await keptByThePage(page)).not.toContain(VENDOR_KEY);
    await page.getByLabel("Rental model").selectOption("per_query");
    await page.getByLabel(/^Price \(ETH/).fill("0.001");
    await page.getByRole("button", { name: "List on-chain" }).click();
    await page.getByText(DONE).waitFor();
    const href =
      (await page.getByRole("link", { name: "Open the listing" }).getAttribute("href")) ?? "";
    const agentId = href.replace("/listings/", "");
    listing = { agentId, listingId: parseApiListingId(agentId) as Hex, price: FIRST_PRICE };

    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "My listings" })
      .click();
    const card = myListingCard(page, TITLE);
    await expect.poll(() => card.getByTestId("price").textContent()).toBe("0.001 ETH (Per task)");
    await card.getByLabel("New price (ETH)").fill("0.002");
    await card.getByRole("button", { name: "Change the price" }).click();
    await card.getByText(DONE).waitFor();
    await expect.poll(() => card.getByTestId("price").textContent()).toBe("0.002 ETH (Per task)");
    await expectAccessible(page, "my listings, re-priced");
    const [, price] = await stack().marketplace.publicClient.readContract({
      address: stack().deployment.address,
      abi: serviceMarketplaceAbi,
      functionName: "listings",
      args: [listing.listingId],
    });
    expect(price).toBe(NEW_PRICE);
    listing.price = NEW_PRICE;

    await page.getByRole("link", { name: "Catalogue" }).click();
    await page.getByLabel("Search", { exact: true }).fill("own OpenAI key");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const found = page
      .getByRole("listitem")
      .filter({ has: page.getByRole("link", { name: TITLE }) });
    await found.getByText("0.002 ETH per task").waitFor();
    await close();
  }, 240_000);

  it("shows a renter the agent's output field by field as its output schema names them, raw JSON a click away; the run used the creator's key", async () => {
    renter = await perTaskRenter(stack(), listing, NEW_PRICE * 20n);
    servers.vendor.script(MODEL, [{ kind: "json", value: AUDIT }]);
    const { page, close } = await openDashboard(browser, stack(), renter.account, {
      path: `/playground?agent=${listing.agentId}`,
    });
    await connectAndSignIn(page, "Playground");
    await page.getByRole("textbox", { name: "Task" }).fill("Audit the vault");
    await page.getByRole("button", { name: "Run task" }).click();
    const fields = page.getByTestId("output-fields");
    await fields.waitFor();
    const termsAndValues = await fields.evaluate((list) =>
      [...list.children].map((child) => [child.tagName, child.textContent]),
    );
    // In the stored manifest's order, which its canonical JSON sorts by name.
    expect(termsAndValues).toEqual([
      ["DT", "Findings"],
      ["DD", AUDIT.findings.join("")],
      ["DT", "severity"],
      ["DD", "8.5"],
      ["DT", "Summary"],
      ["DD", AUDIT.summary],
    ]);
    expect(await fields.getByRole("listitem").allTextContents()).toEqual(AUDIT.findings);
    const raw = page.getByTestId("run-output");
    expect(await raw.isVisible()).toBe(false);
    await expectAccessible(page, "the playground with structured output");
    await screenshot(page, screenshots, "playground-structured-output.png");
    await page.getByRole("button", { name: "Raw JSON" }).click();
    expect(await raw.isVisible()).toBe(true);
    expect(JSON.parse((await raw.textContent()) ?? "")).toEqual(AUDIT);
    expect(keysSent()).toEqual([VENDOR_KEY]);
    await close();
  }, 180_000);

  it("publishes a new version from My listings and makes it current; its runs use the key given with it", async () => {
    const { page, close } = await openDashboard(browser, stack(), creator, {
      path: "/my-listings",
    });
    await connectAndSignIn(page, "My listings");
    await myListingCard(page, TITLE).getByRole("link", { name: "Publish a new version" }).click();
    await expect.poll(() => focusedElement(page)).toBe(`H1 New version of ${TITLE}`);
    expect(await page.title()).toBe(`New version of ${TITLE} · ${SITE_NAME}`);
    // The public manifest fills the form; the prompt and the key are never sent back.
    const description = page.getByLabel("Description");
    expect(await description.inputValue()).toBe("Audits contracts on the creator's own OpenAI key");
    expect(await page.getByLabel("System prompt").inputValue()).toBe("");
    expect(await page.getByLabel("OpenAI API key").inputValue()).toBe("");
    await description.fill("Audits contracts on the creator's own OpenAI key, second edition");
    await page.getByLabel("System prompt").fill("You audit Solidity contracts, line by line.");
    await page.getByLabel("OpenAI API key").fill(SECOND_VENDOR_KEY);
    await expectAccessible(page, "a new version's form");
    await page.getByRole("button", { name: "Register the version" }).click();
    await page.getByRole("heading", { name: "Version registered: now make it current" }).waitFor();
    expect(await page.getByLabel("Price (ETH)").inputValue()).toBe("0.002");
    await page.getByRole("button", { name: "Make it current" }).click();
    await page.getByText(DONE).waitFor();
    await screenshot(page, screenshots, "new-version.png");
    await expectAccessible(page, "a new version made current");
    await page.getByRole("link", { name: "Open the listing" }).click();
    await page.getByText("second edition").waitFor();

    servers.vendor.script(MODEL, [{ kind: "json", value: AUDIT }]);
    expect((await runAsRenter()).body.status).toBe("completed");
    expect(keysSent().at(-1)).toBe(SECOND_VENDOR_KEY);
    await close();
  }, 180_000);

  it("charts the day's runs and failures on My listings as they happen: 5 runs, 1 failed", async () => {
    const { page, close } = await openDashboard(browser, stack(), creator, {
      path: "/my-listings",
    });
    await connectAndSignIn(page, "My listings");
    const today = new Date().toISOString().slice(0, 10);
    const dayShown = async () => {
      const row = page.getByTestId("daily-activity").getByRole("row", { name: today });
      return (await row.count()) === 1 ? await row.getByRole("cell").allTextContents() : [];
    };
    // The playground's run and the new version's: two so far.
    await expect.poll(dayShown).toEqual(["2", "0", expect.stringMatching(/ ETH$/)]);

    servers.vendor.script(MODEL, [
      { kind: "json", value: AUDIT },
      { kind: "error", status: 400, message: "The model refuses" },
      { kind: "json", value: AUDIT },
    ]);
    const statuses = [];
    for (let run = 0; run < 3; run++) statuses.push((await runAsRenter()).body.status);
    expect(statuses).toEqual(["completed", "failed", "completed"]);
    // The page reads the days again when its listings' run counts change: no reload.
    await expect.poll(dayShown, { timeout: 30_000 }).toEqual(["5", "1", expect.any(String)]);
    // Every debit of the listing was today's, the failed run's none: the day earned 4 prices less
    // the protocol's fee, as the listing did.
    const feeBasisPoints = await stack().marketplace.publicClient.readContract({
      address: stack().deployment.address,
      abi: serviceMarketplaceAbi,
      functionName: "DEFAULT_FEE_BASIS_POINTS",
    });
    const creatorShare = NEW_PRICE - (NEW_PRICE * BigInt(feeBasisPoints)) / 10_000n;
    const earned = `${formatEther(4n * creatorShare)} ETH`;
    const earnedOnCard = myListingCard(page, TITLE).getByTestId("earned");
    await expect
      .poll(async () => [(await dayShown())[2], await earnedOnCard.textContent()], {
        timeout: 30_000,
      })
      .toEqual([earned, earned]);
    await page.getByRole("img", { name: "Runs and failures per day" }).waitFor();
    // The API's window of days, today last.
    expect(await page.locator("#runs-chart-desc").textContent()).toMatch(
      new RegExp(`^5 runs, 1 failed, from \\d{4}-\\d\\d-\\d\\d to ${today}\\.$`),
    );
    await expectAccessible(page, "my listings with the activity chart");
    await screenshot(page, screenshots, "my-listings-activity.png");
    await close();
  }, 180_000);

  it("pages through the renter's runs, newest first, following titles and focus", async () => {
    const latest: string[] = [];
    for (let run = 0; run < 6; run++) latest.unshift((await runAsRenter()).body.run_id);
    const { page, close } = await openDashboard(browser, stack(), renter.account);
    await connectAndSignIn(page, "Catalogue");
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Runs" })
      .click();
    await expect.poll(() => focusedElement(page)).toBe("H1 Runs");
    expect(await page.title()).toBe(`Runs · ${SITE_NAME}`);
    const runIds = () => page.locator("tbody tr td:last-child").allTextContents();

    await page.getByText("Page 1", { exact: true }).waitFor();
    const first = await runIds();
    expect(first).toHaveLength(10);
    expect(first.slice(0, 6)).toEqual(latest);
    await page.getByRole("cell", { name: TITLE }).first().waitFor();
    await expectAccessible(page, "the runs page");
    await screenshot(page, screenshots, "runs.png");

    await page.getByRole("button", { name: "Next page" }).click();
    await page.getByText("Page 2", { exact: true }).waitFor();
    const second = await runIds();
    expect(second).toHaveLength(1);
    expect(new Set([...first, ...second]).size).toBe(11);
    expect(await page.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Previous page" }).click();
    await page.getByText("Page 1", { exact: true }).waitFor();
    expect(await runIds()).toEqual(first);
    await close();
  }, 180_000);
});
