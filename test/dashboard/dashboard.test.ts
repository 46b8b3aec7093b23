// The dashboard in a real Chromium against the real stack, with a wallet injected the way a browser
// extension injects one: connect, sign in, manage an API key, rent a per-task agent and run a task
// with its output streamed in, fill the form an agent's input schema makes, review an agent once it
// ran a task, check a run's receipt against the chain on its page (pending, verified, and altered on
// its way from the API), and follow pages by title and focus. axe-core checks every page visited;
// the main flow runs at phone width too. The build served is the production one, and its initial
// JavaScript stays within budget. With UPDATE_SCREENSHOTS=1, the other pages' screenshots are
// written into docs/screenshots (the catalogue, a listing and the playground come from the demo
// catalogue: demoCatalogue.test.ts).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { type Address, formatEther, type Hex, keccak256, parseEther, stringToHex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { Rolldown } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INITIAL_JAVASCRIPT_BUDGET_BYTES,
  initialJavaScriptGzipBytes,
} from "../../dashboard/initialJavaScript.ts";
import { ONE_TIME, SUBSCRIPTION } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import type { ReceiptDocument } from "../../sdk/src/receipts/receiptTypes.ts";
import { newWallet } from "../settlement/settlementFixtures.ts";
import { expectAccessible } from "../support/accessibility.ts";
import { anchoredReceipt } from "../support/anchoredReceipt.ts";
import { behaving } from "../support/behavingAgent.ts";
import { launchBrowser, screenshotPath } from "../support/browser.ts";
import { listPerTaskAgent, perTaskRenter } from "../support/connectedListing.ts";
import { buildDashboard } from "../support/dashboardBuild.ts";
import { injectWallet } from "../support/injectedWallet.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { receiptSeenAt } from "../support/receiptSeenAt.ts";
import { recordTextChanges } from "../support/textChanges.ts";

const PRICE = parseEther("0.01");
const dashboardDir = mkdtempSync(join(tmpdir(), "dashboard-"));
const screenshots = mkdtempSync(join(tmpdir(), "dashboard-screenshots-"));
const { stack, agent, listing, addRenter } = usePerTaskAgentOnStack({
  name: "dashboard-summariser",
  price: PRICE,
  env: { DASHBOARD_DIR: dashboardDir },
  startProcesses: () => stack().addWorker(),
});
let browser: Browser;
let build: Rolldown.RolldownOutput;

beforeAll(async () => {
  build = await buildDashboard(dashboardDir);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** A page of the dashboard at `path` with a wallet injected: by default a fresh one of 100 ETH. */
async function openDashboard(
  viewport: { width: number; height: number },
  {
    path = "/",
    account,
    onChainId,
    onTransaction,
    onSign,
  }: {
    path?: string;
    account?: PrivateKeyAccount;
    onChainId?: number;
    onTransaction?: (hash: Hex) => void;
    onSign?: (message: string) => void;
  } = {},
) {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await context.newPage();
  await injectWallet(page, account ?? (await newWallet(stack())), stack().anvil.rpcUrl, {
    onChainId,
    onTransaction,
    onSign,
  });
  await page.goto(`${stack().api.url}${path}`);
  return { page, close: () => context.close() };
}

async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: screenshotPath(screenshots, name), fullPage: true });
}

/** Connects the injected wallet and signs in: the page asked for opens. */
async function connectAndSignIn(page: Page, heading = "Catalogue") {
  await page.getByRole("heading", { name: "Connect a wallet" }).waitFor();
  await expectAccessible(page, "the connect prompt");
  await page.getByRole("main").getByRole("button", { name: "Connect browser wallet" }).click();
  await page.getByRole("button", { name: "Sign in with wallet" }).click();
  await page.getByRole("heading", { name: heading }).waitFor();
}

const balanceOf = (page: Page) => page.getByTestId("balance");
const SITE_NAME = "Agent rental marketplace";

/** The focused element's tag and text, as `H1 Catalogue`. */
const focusedElement = (page: Page) =>
  page.evaluate('document.activeElement?.tagName + " " + document.activeElement?.textContent');

/** An auditor's input, as a creator would describe it: each kind of field a form can show. */
const AUDIT_INPUT_SCHEMA = {
  type: "object",
  properties: {
    source: {
      type: "string",
      title: "Contract source",
      description: "The Solidity source to audit",
    },
    language: { title: "Language", enum: ["solidity", "vyper"] },
    max_findings: { type: "integer", minimum: 1, maximum: 20, description: "At most this many" },
    strict: { type: "boolean", title: "Strict mode" },
  },
  required: ["source", "language"],
  additionalProperties: false,
};
const DONE = "Done: the marketplace has indexed the transaction.";
const DAY = 86_400;
const SUBSCRIPTION_PRICE = parseEther("0.03");
const ONE_TIME_PRICE = parseEther("0.02");
const client = () => stack().marketplace.publicClient;

/** A listing of `name`'s agent, published by a creator of its own at `price` wei. */
async function publish(name: string, model: number, price: bigint) {
  const onChainId = await stack().publishListing({
    creator: devAccount(4),
    seed: name,
    model,
    price,
    manifest: { name, category: "research", description: `${name}, rented or bought once` },
  });
  return { onChainId, id: toApiListingId(onChainId) };
}

/**
 * What `renter` pays the marketplace while `act` runs, from the chain: its balance's fall less the
 * gas of the transactions its wallet sent (noted in `sent`) meanwhile.
 */
function paidBy(renter: Address, sent: Hex[]) {
  return async (act: () => Promise<void>): Promise<bigint> => {
    const from = sent.length;
    const before = await client().getBalance({ address: renter });
    await act();
    const after = await client().getBalance({ address: renter });
    let gas = 0n;
    for (const hash of sent.slice(from)) {
      const receipt = await client().getTransactionReceipt({ hash });
      gas += receipt.gasUsed * receipt.effectiveGasPrice;
    }
    return before - after - gas;
  };
}

/** The credential card of the listing `title` on My credentials. */
const credentialCard = (page: Page, title: string) =>
  page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title }) });

/** The subscription's expiry shown in `within`, in seconds, from its `<time>`'s exact value. */
async function expiryShown(within: Page | Locator): Promise<number> {
  const iso = await within.getByTestId("expires").locator("time").getAttribute("datetime");
  return Date.parse(iso ?? "") / 1000;
}

/** From the catalogue: finds the listing, rents 3 tasks' worth, runs a streamed task in the playground. */
async function rentAndRun(
  page: Page,
  name: (page: string) => string | undefined = () => undefined,
) {
  await page.getByLabel("Search", { exact: true }).fill("answers as its task says");
  await page.getByLabel("Rental model").selectOption("per_query");
  await page.getByLabel("Sort by").selectOption("newest");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const card = page.getByRole("link", { name: "Dashboard Summariser" });
  await card.waitFor();
  await expectAccessible(page, "the catalogue");
  if (name("catalogue")) await screenshot(page, name("catalogue") as string);
  await card.click();

  await page.getByRole("heading", { name: "Dashboard Summariser" }).waitFor();
  await page.getByLabel(/Deposit \(ETH\)/).fill(formatEther(PRICE * 3n));
  await expectAccessible(page, "the listing");
  await page.getByRole("button", { name: "Rent for 0.03 ETH" }).click();
  await page.getByText("Done: the marketplace has indexed the transaction.").waitFor();
  await expect.poll(() => balanceOf(page).textContent()).toBe("0.03 ETH");
  if (name("listing")) await screenshot(page, name("listing") as string);

  await page.getByRole("link", { name: "Run a task in the playground" }).click();
  await page.getByRole("heading", { name: "Playground" }).waitFor();
  await expect.poll(() => balanceOf(page).textContent()).toBe("0.03 ETH");
  await page.getByRole("textbox", { name: "Task" }).fill(
    behaving({
      deltas: ["Reading the contract… ", "no reentrancy found."],
      deltaGapMs: 1_000,
      output: { summary: "safe" },
    }),
  );
  await page.getByRole("button", { name: "Run task" }).click();
  // The first delta shows while the run is still going: the output is streamed, not waited for.
  await page.getByTestId("run-output").getByText("Reading the contract…").waitFor();
  expect(await page.getByRole("button", { name: "Running…" }).isVisible()).toBe(true);
  const result = page.getByRole("definition").filter({ hasText: "ETH" });
  await page.getByTestId("run-output").getByText("no reentrancy found.").waitFor();
  await page.getByRole("term").filter({ hasText: "Cost" }).waitFor();
  expect(await result.first().textContent()).toBe("0.01 ETH");
  expect(await page.getByText(/^\d+\.\d\d s$/).count()).toBe(1);
  // The run is debited on-chain after it ends; the balance shown follows.
  await expect.poll(() => balanceOf(page).textContent(), { timeout: 30_000 }).toBe("0.02 ETH");
  await page.getByText('"name": "execute_agent"').waitFor();
  await expectAccessible(page, "the playground");
  if (name("playground")) await screenshot(page, name("playground") as string);
}

it("loads at most 300 KB of gzip-compressed JavaScript before the first render", () => {
  const bytes = initialJavaScriptGzipBytes(build.output);
  console.log(`dashboard initial JavaScript: ${(bytes / 1024).toFixed(1)} KB gzip`);
  expect(bytes).toBeGreaterThan(0);
  expect(bytes).toBeLessThanOrEqual(INITIAL_JAVASCRIPT_BUDGET_BYTES);
});

describe("the dashboard with an injected wallet", () => {
  it("signs in and confirms an API key with SIWE messages naming the API's host; the key works with a plain fetch until it is revoked", async () => {
    const signed: string[] = [];
    const { page, close } = await openDashboard(DESKTOP, { onSign: (text) => signed.push(text) });
    await connectAndSignIn(page);
    const host = new URL(stack().api.url).host;
    const siweFirstLine = `${host} wants you to sign in with your Ethereum account:`;
    expect(signed.map((text) => text.split("\n")[0])).toEqual([siweFirstLine]);
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await expectAccessible(page, "the API keys page");

    await page.getByLabel("Label").fill("billing server");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("created-key");
    await shown.waitFor();
    await expect.poll(() => page.getByText("it will not be shown again").count()).toBe(1);
    const key = (await shown.textContent()) as string;
    expect(key).toMatch(/^intl_test_/);
    await page.getByRole("button", { name: "Copy the key billing server" }).click();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(key);
    await page.getByRole("cell", { name: "billing server", exact: true }).waitFor();
    await page.getByRole("cell", { name: "run, read", exact: true }).waitFor();
    // finding M-5: the wallet confirmed a message naming this API, the label and the scopes.
    expect(signed).toHaveLength(2);
    expect(signed[1]?.split("\n")[0]).toBe(siweFirstLine);
    expect(signed[1]).toContain(
      'Create an API key labelled "billing server" with the scopes: run, read.',
    );
    await expectAccessible(page, "the API keys page with a new key");
    await screenshot(page, "api-keys.png");

    const withKey = () =>
      fetch(`${stack().api.url}/v1/credentials`, { headers: { authorization: `Bearer ${key}` } });
    expect((await withKey()).status).toBe(200);
    // finding L-6: the dashboard's default ticks give a renter's scopes, no creator's.
    const job = await fetch(
      `${stack().api.url}/v1/jobs/job_0000000000000000000000000000000000000000`,
      {
        headers: { authorization: `Bearer ${key}` },
      },
    );
    expect(job.status).toBe(403);
    expect(((await job.json()) as { error: { code: string } }).error.code).toBe("forbidden");

    await page.getByRole("button", { name: "Revoke billing server" }).click();
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await page.getByText(/^Revoked /).waitFor();
    // The session's JWT lives in memory only.
    const stored = await page.evaluate("JSON.stringify([localStorage, sessionStorage])");
    expect(stored).not.toMatch(/eyJ[\w-]+\.eyJ/);
    const refused = await withKey();
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );
    await close();
  }, 120_000);

  it("rents a per-task agent, runs a streamed task, and shows the balance fall by the price", async () => {
    const { page, close } = await openDashboard(DESKTOP);
    await connectAndSignIn(page);
    await rentAndRun(page);

    await page.getByRole("link", { name: "My credentials" }).click();
    await page.getByRole("heading", { name: "My credentials" }).waitFor();
    await page.getByRole("link", { name: "Dashboard Summariser" }).waitFor();
    await expect.poll(() => balanceOf(page).textContent()).toBe("0.02 ETH");
    await expectAccessible(page, "my credentials");
    await screenshot(page, "credentials.png");
    await close();
  }, 180_000);

  it("answers a run past the balance with insufficient_balance and offers a top-up", async () => {
    const renter = await addRenter(PRICE);
    const { page, close } = await openDashboard(DESKTOP, {
      path: `/playground?agent=${listing().agentId}`,
      account: renter.account,
    });
    await connectAndSignIn(page, "Playground");
    await page.getByRole("textbox", { name: "Task" }).fill(behaving());
    await page.getByRole("button", { name: "Run task" }).click();
    await expect.poll(() => balanceOf(page).textContent(), { timeout: 30_000 }).toBe("0 ETH");

    await page.getByRole("button", { name: "Run task" }).click();
    await page.getByText("Your per-task balance cannot cover a run: top it up.").waitFor();
    await expectAccessible(page, "the playground with an error");
    await page.getByLabel("Top up (ETH)").fill("0.05");
    await page.getByRole("button", { name: "Top up", exact: true }).click();
    await page.getByText("Done: the marketplace has indexed the transaction.").waitFor();
    await expect.poll(() => balanceOf(page).textContent()).toBe("0.05 ETH");
    await close();
  }, 120_000);

  it("registers an agent, lists it on-chain, and manages it in My listings as it sells", async () => {
    const { page, close } = await openDashboard(DESKTOP, { path: "/register" });
    await connectAndSignIn(page, "Register an agent");
    await page.getByLabel("Name").fill("Listed From The Dashboard");
    await page
      .getByLabel("Description")
      .fill("Answers as its task says, listed from the dashboard");
    await page.getByLabel("Entrypoint URL (connected agent)").fill(agent().url("/agents/listed"));
    await page.getByLabel("Output schema (JSON Schema)").fill("{not json");
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByText("This is not valid JSON.").waitFor();

    await page.getByLabel("Output schema (JSON Schema)").fill('{"type": "object"}');
    await page.getByRole("button", { name: "Register" }).click();
    const name = page.getByLabel("Name");
    await page.getByText(/^name: must be lowercase letters/).waitFor();
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page, "the registration with violations");
    await screenshot(page, "register.png");

    await name.fill("listed-from-the-dashboard");
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByRole("heading", { name: "Registered: now list it" }).waitFor();
    await page.getByLabel("Rental model").selectOption("one_time");
    await page.getByRole("button", { name: "List on-chain" }).click();
    await page.getByText("Done: the marketplace has indexed the transaction.").waitFor();
    await expectAccessible(page, "the registration once listed");
    const href =
      (await page.getByRole("link", { name: "Open the listing" }).getAttribute("href")) ?? "";

    await page.getByRole("link", { name: "My listings" }).click();
    await page.getByRole("link", { name: "Listed From The Dashboard" }).waitFor();
    const fact = (testId: string) => page.getByTestId(testId).textContent();
    await expect.poll(() => fact("purchases")).toBe("0");
    await expect.poll(() => fact("escrow")).toBe("0 ETH");
    await expect.poll(() => fact("earned")).toBe("0 ETH");
    const purchases = await recordTextChanges(page, "purchases");

    // A renter buys it in a browser of its own: the creator's page follows without a reload.
    let mined: Promise<number> | undefined;
    const renter = await openDashboard(DESKTOP, {
      path: href,
      onTransaction: (hash) => {
        mined = receiptSeenAt(stack().marketplace.publicClient, hash);
      },
    });
    await connectAndSignIn(renter.page, "Listed From The Dashboard");
    await renter.page.getByRole("button", { name: "Rent for 0.01 ETH" }).click();
    await renter.page.getByText("Done: the marketplace has indexed the transaction.").waitFor();
    await expect.poll(() => fact("purchases"), { timeout: 15_000 }).toBe("1");
    await expect.poll(() => fact("escrow")).not.toBe("0 ETH");
    await expect.poll(() => fact("earned")).not.toBe("0 ETH");
    const latency = (await purchases.shownAt("1")) - (await (mined as Promise<number>));
    console.log(`the renter's purchase mined → the creator's screen showing it: ${latency} ms`);
    await renter.close();
    await expectAccessible(page, "my listings");
    await screenshot(page, "my-listings.png");

    await page.getByRole("button", { name: "Close" }).click();
    await page
      .getByText("The listing's escrow still holds earnings: withdraw them first")
      .waitFor();
    await page.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => fact("listing-status"), { timeout: 15_000 }).toBe("paused");
    await page.getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => fact("listing-status"), { timeout: 15_000 }).toBe("active");
    await page.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => fact("listing-status"), { timeout: 15_000 }).toBe("paused");
    // Finding L-7: a paused listing is emptied and closed in one transaction.
    const earned = await fact("earned");
    await page.getByRole("button", { name: "Withdraw and close" }).click();
    await expect.poll(() => fact("listing-status"), { timeout: 15_000 }).toBe("closed");
    expect(await fact("escrow")).toBe("0 ETH");
    expect(await fact("withdrawn")).toBe(earned);
    await close();
  }, 180_000);

  it("rents a subscription, renews it, and buys a one-time rental, each at the listing's price", async () => {
    const subscription = await publish("dashboard-subscriber", SUBSCRIPTION, SUBSCRIPTION_PRICE);
    const oneTime = await publish("dashboard-one-off", ONE_TIME, ONE_TIME_PRICE);
    const renter = await newWallet(stack());
    const sent: Hex[] = [];
    const { page, close } = await openDashboard(DESKTOP, {
      path: `/listings/${subscription.id}`,
      account: renter,
      onTransaction: (hash) => sent.push(hash),
    });
    const paid = paidBy(renter.address, sent);
    const onChain = async (onChainId: Hex) => {
      const [, purchasedAt, expiresAt] = await client().readContract({
        address: stack().deployment.address,
        abi: serviceMarketplaceAbi,
        functionName: "credentials",
        args: [onChainId, renter.address],
      });
      return { purchasedAt, expiresAt };
    };
    await connectAndSignIn(page, "Dashboard Subscriber");
    await expectAccessible(page, "a subscription's listing");

    await page.getByLabel("30 days (0.03 ETH)").check();
    expect(
      await paid(async () => {
        await page.getByRole("button", { name: "Rent for 0.03 ETH" }).click();
        await page.getByText(DONE).waitFor();
      }),
    ).toBe(SUBSCRIPTION_PRICE);
    const purchase = await client().getTransactionReceipt({ hash: sent[0] as Hex });
    const { timestamp } = await client().getBlock({ blockNumber: purchase.blockNumber });
    const { expiresAt: bought } = await onChain(subscription.onChainId);
    expect(bought).toBe(Number(timestamp) + 30 * DAY);
    await expect.poll(() => expiryShown(page)).toBe(bought);
    await expectAccessible(page, "a subscription's listing, rented");

    await page.getByRole("link", { name: "My credentials" }).click();
    const card = credentialCard(page, "Dashboard Subscriber");
    expect(await expiryShown(card)).toBe(bought);
    await expectAccessible(page, "my credentials with a subscription");

    await card.getByRole("link", { name: "Renew" }).click();
    await page.getByLabel("Renew for").selectOption("90");
    expect(
      await paid(async () => {
        await page.getByRole("button", { name: "Renew", exact: true }).click();
        await page.getByText(DONE).waitFor();
      }),
    ).toBe(SUBSCRIPTION_PRICE * 3n);
    const { expiresAt: renewed } = await onChain(subscription.onChainId);
    expect(renewed).toBe(bought + 90 * DAY);
    await expect.poll(() => expiryShown(page)).toBe(renewed);
    await expectAccessible(page, "a subscription's listing, renewed");
    await page.getByRole("link", { name: "My credentials" }).click();
    await expect
      .poll(() => expiryShown(credentialCard(page, "Dashboard Subscriber")))
      .toBe(renewed);

    await page.getByRole("link", { name: "Catalogue" }).click();
    await page.getByLabel("Search", { exact: true }).fill("bought once");
    await page.getByLabel("Rental model").selectOption("one_time");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("link", { name: "Dashboard One Off" }).click();
    await page.getByRole("heading", { name: "Dashboard One Off" }).waitFor();
    await expectAccessible(page, "a one-time listing");
    expect(
      await paid(async () => {
        await page.getByRole("button", { name: "Rent for 0.02 ETH" }).click();
        await page.getByText(DONE).waitFor();
      }),
    ).toBe(ONE_TIME_PRICE);
    const once = await onChain(oneTime.onChainId);
    expect(once.purchasedAt).toBeGreaterThan(0);
    expect(once.expiresAt, "a one-time credential never expires").toBe(0);
    await page.getByText("Your credential: active").waitFor();
    // Bought in the latest block, which the chain's safe block (32 behind) does not reach yet.
    expect(await page.getByTestId("finality").textContent()).toBe(
      "On-chain: in the latest block only; a reorganisation could still undo it",
    );

    await page.getByRole("link", { name: "My credentials" }).click();
    const boughtOnce = credentialCard(page, "Dashboard One Off");
    await boughtOnce.getByText("One-time").waitFor();
    expect(await boughtOnce.getByTestId("expires").count()).toBe(0);
    expect(await credentialCard(page, "Dashboard Subscriber").count()).toBe(1);
    await expectAccessible(page, "my credentials with a subscription and a one-time rental");
    await close();
  }, 180_000);

  it("builds a run's input from the form the listing's input schema makes, and from raw JSON", async () => {
    const auditor = await listPerTaskAgent(stack(), agent(), {
      name: "dashboard-form-auditor",
      price: PRICE,
      inputSchema: AUDIT_INPUT_SCHEMA,
    });
    const renter = await perTaskRenter(stack(), auditor, PRICE * 3n);
    const { page, close } = await openDashboard(DESKTOP, {
      path: `/playground?agent=${auditor.agentId}`,
      account: renter.account,
    });
    await connectAndSignIn(page, "Playground");
    const source = page.getByLabel("Contract source (required)");
    await source.fill("contract Vault { function withdraw() external {} }");
    await page.getByText("The Solidity source to audit").waitFor();
    await page.getByLabel("Language (required)").selectOption("vyper");
    await page.getByLabel("max_findings").fill("3");
    await page.getByLabel("Strict mode").check();
    await page.getByRole("textbox", { name: "Task" }).fill(behaving({ echoInput: true }));
    await expectAccessible(page, "the playground's generated form");
    await page.getByRole("button", { name: "Run task" }).click();
    await page.getByRole("term").filter({ hasText: "Cost" }).waitFor();
    const sent = {
      source: "contract Vault { function withdraw() external {} }",
      language: "vyper",
      max_findings: 3,
      strict: true,
    };
    // The agent answers with the input it was given: the form's values, typed as the schema says.
    expect(JSON.parse((await page.getByTestId("run-output").textContent()) ?? "")).toEqual(sent);
    await screenshot(page, "playground-form.png");

    // The same input as raw JSON; back in the form, what the form cannot show stays JSON.
    await page.getByRole("radio", { name: "JSON" }).check();
    const json = page.getByLabel("Input (JSON)");
    expect(JSON.parse(await json.inputValue())).toEqual(sent);
    await json.fill(JSON.stringify({ ...sent, severity: "high" }));
    await page.getByRole("radio", { name: "Form" }).click();
    await page.getByText("This input holds what the form has no field for").waitFor();
    expect(await page.getByRole("radio", { name: "JSON" }).isChecked()).toBe(true);
    await json.fill(JSON.stringify({ ...sent, max_findings: 5 }));
    await page.getByRole("radio", { name: "Form" }).check();
    expect(await page.getByLabel("max_findings").inputValue()).toBe("5");
    await expectAccessible(page, "the playground's form after raw JSON");
    await close();
  }, 180_000);

  it("refuses a renter's review before its first run, publishes it after, and rates the listing", async () => {
    const renter = await addRenter(PRICE * 2n);
    const { page, close } = await openDashboard(DESKTOP, {
      path: `/listings/${listing().agentId}`,
      account: renter.account,
    });
    await connectAndSignIn(page, "Dashboard Summariser");
    const reviews = page.getByRole("region", { name: "Reviews" });
    await reviews.getByText("No reviews yet.").waitFor();
    expect(await page.getByTestId("rating").textContent()).toBe("No reviews yet");
    const review = async () => {
      await page.getByLabel("4 stars").check();
      await page.getByLabel("Review", { exact: true }).fill("Summarised the contract in seconds.");
      await page.getByRole("button", { name: "Publish review" }).click();
    };
    await review();
    // The API's own words say why it refuses.
    await page
      .getByText(/^Only a wallet that holds or held a credential for this listing/)
      .waitFor();
    await expectAccessible(page, "a listing refusing a review");

    await page.getByRole("link", { name: "Run a task in the playground" }).click();
    await page.getByRole("textbox", { name: "Task" }).fill(behaving());
    await page.getByRole("button", { name: "Run task" }).click();
    await page.getByRole("term").filter({ hasText: "Cost" }).waitFor();
    await expect.poll(() => balanceOf(page).textContent(), { timeout: 30_000 }).toBe("0.01 ETH");
    await page.goBack();
    await page.getByRole("heading", { name: "Dashboard Summariser" }).waitFor();
    await review();
    await page.getByText("Your review is published.").waitFor();
    await expect.poll(() => page.getByTestId("rating").textContent()).toBe("4.0 of 5 (1 review)");
    const published = reviews.getByRole("listitem");
    await published.getByText("Rated 4 of 5").waitFor();
    await published.getByText("Summarised the contract in seconds.").waitFor();
    await expectAccessible(page, "a listing with a review");
    await screenshot(page, "listing-reviews.png");
    await close();
  }, 180_000);

  it("links each run to its page, whose receipt the browser checks on-chain: pending while the run goes on, verified once anchored, not valid once altered", async () => {
    const renter = await addRenter(PRICE * 2n);
    const finished = await renter.api.post("/v1/execute", {
      agent_id: listing().agentId,
      task: behaving(),
    });
    expect(finished.status).toBe(200);
    const finishedId: string = finished.body.run_id;
    const { anchor } = await anchoredReceipt(renter.api, finishedId);
    if (!anchor) throw new Error("anchoredReceipt answers an anchored receipt");
    const started = await renter.api.post("/v1/runs", {
      agent_id: listing().agentId,
      task: behaving({ hold: "receipt-page" }),
    });
    expect(started.status).toBe(202);
    const goingOnId: string = started.body.run_id;
    await agent().held("receipt-page");

    const { page, close } = await openDashboard(DESKTOP, {
      path: "/runs",
      account: renter.account,
    });
    await connectAndSignIn(page, "Runs");
    await page.getByRole("link", { name: goingOnId }).click();
    await expect.poll(() => focusedElement(page)).toBe("H1 Run");
    expect(await page.title()).toBe(`Run · ${SITE_NAME}`);
    const fact = (testId: string) => page.getByTestId(testId).textContent();
    await expect
      .poll(() => fact("receipt-status"))
      .toBe("Pending: the receipt comes once the run's cost is final.");
    await expectAccessible(page, "a run's page, its receipt pending");
    agent().release("receipt-page");

    await page.getByRole("link", { name: "All your runs" }).click();
    await page.getByRole("link", { name: finishedId }).click();
    await expect.poll(() => fact("receipt-status")).toBe("Verified against the chain");
    expect(await fact("receipt-signature")).toBe("Valid: signed by the marketplace's receipts key");
    expect(await fact("receipt-inclusion")).toBe(
      `Valid: in the batch of Merkle root ${anchor.root}`,
    );
    expect(await fact("receipt-anchored")).toBe(
      `At block ${anchor.block}, transaction ${anchor.transaction}`,
    );
    expect(await page.getByRole("list", { name: "Problems" }).count()).toBe(0);
    await expectAccessible(page, "a run's page, its receipt verified");
    await screenshot(page, "run-receipt.png");
    await close();

    // The API's answer altered on its way to the page: the page checks it against the chain, not the API.
    const altered = await openDashboard(DESKTOP, {
      path: `/runs/${finishedId}`,
      account: renter.account,
    });
    let alter = (document: ReceiptDocument): ReceiptDocument => ({
      ...document,
      receipt: { ...document.receipt, cost_wei: "1" },
    });
    await altered.page.route(`**/v1/runs/${finishedId}/receipt`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: alter((await response.json()) as ReceiptDocument) });
    });
    await connectAndSignIn(altered.page, "Run");
    const alteredFact = (testId: string) => altered.page.getByTestId(testId).textContent();
    await expect.poll(() => alteredFact("receipt-status")).toBe("Not valid");
    expect(await alteredFact("receipt-signature")).toBe(
      "Invalid: not signed by the marketplace's receipts key",
    );
    expect(await alteredFact("receipt-inclusion")).toBe(
      `Invalid: the Merkle proof does not lead to root ${anchor.root}`,
    );
    await altered.page.getByRole("list", { name: "Problems" }).waitFor();
    await expectAccessible(altered.page, "a run's page, its receipt altered");
    await screenshot(altered.page, "run-receipt-altered.png");
    // Hashes and addresses wrap at phone width rather than widen the page.
    await altered.page.setViewportSize(PHONE);
    const width = await altered.page.evaluate("document.documentElement.scrollWidth");
    await screenshot(altered.page, "run-receipt-altered-phone.png");
    expect(width, "no horizontal scrolling").toBeLessThanOrEqual(PHONE.width);
    await altered.page.setViewportSize(DESKTOP);

    // A root the chain never anchored, under a receipt as signed.
    const unanchoredRoot = keccak256(stringToHex("a root never anchored"));
    alter = (document) => ({ ...document, anchor: { ...anchor, root: unanchoredRoot } });
    await altered.page.getByRole("link", { name: "All your runs" }).click();
    await altered.page.getByRole("link", { name: finishedId }).click();
    await expect
      .poll(() => alteredFact("receipt-anchored"))
      .toBe(`Invalid: the chain does not hold this root at block ${anchor.block}`);
    expect(await alteredFact("receipt-status")).toBe("Not valid");
    expect(await alteredFact("receipt-signature")).toBe(
      "Valid: signed by the marketplace's receipts key",
    );
    expect(await alteredFact("receipt-inclusion")).toBe(
      `Invalid: the Merkle proof does not lead to root ${unanchoredRoot}`,
    );
    await altered.close();
  }, 180_000);

  it("names each page in the document's title and moves the focus to its heading", async () => {
    const { page, close } = await openDashboard(DESKTOP);
    await page.getByRole("heading", { name: "Connect a wallet" }).waitFor();
    expect(await page.title()).toBe(`Connect a wallet · ${SITE_NAME}`);
    await connectAndSignIn(page);
    expect(await page.title()).toBe(`Catalogue · ${SITE_NAME}`);
    await expect.poll(() => focusedElement(page)).toBe("H1 Catalogue");
    const navigation = page.getByRole("navigation", { name: "Main" });
    for (const name of [
      "My credentials",
      "Playground",
      "API keys",
      "Register an agent",
      "My listings",
      "Catalogue",
    ]) {
      await navigation.getByRole("link", { name }).click();
      await expect.poll(() => page.title()).toBe(`${name} · ${SITE_NAME}`);
      await expect.poll(() => focusedElement(page)).toBe(`H1 ${name}`);
    }
    await page.getByLabel("Search", { exact: true }).fill("answers as its task says");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("link", { name: "Dashboard Summariser" }).click();
    await expect.poll(() => page.title()).toBe(`Dashboard Summariser · ${SITE_NAME}`);
    await expect.poll(() => focusedElement(page)).toBe("H1 Dashboard Summariser");
    await page.goBack();
    await expect.poll(() => page.title()).toBe(`Catalogue · ${SITE_NAME}`);
    await expect.poll(() => focusedElement(page)).toBe("H1 Catalogue");
    await close();
  }, 120_000);

  it("asks a wallet on another chain to switch before signing in", async () => {
    const { page, close } = await openDashboard(DESKTOP, { onChainId: 1 });
    await page.getByRole("main").getByRole("button", { name: "Connect browser wallet" }).click();
    await page.getByRole("heading", { name: "Wrong network" }).waitFor();
    await page.getByText("Your wallet is on chain 1; the marketplace is on chain 31337.").waitFor();
    await expectAccessible(page, "the wrong-network prompt");
    await page.getByRole("button", { name: "Switch to chain 31337" }).click();
    await page.getByRole("button", { name: "Sign in with wallet" }).waitFor();
    await close();
  }, 60_000);

  it("offers anvil's public dev account on the local chain, signing through anvil", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${stack().api.url}/api-keys`);
    await page
      .getByRole("main")
      .getByRole("button", { name: "Use anvil dev account (public key, local chain only)" })
      .click();
    await page.getByRole("button", { name: "Sign in with wallet" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await context.close();
  }, 60_000);

  it("works at phone width", async () => {
    const { page, close } = await openDashboard(PHONE);
    await connectAndSignIn(page);
    await rentAndRun(page, (name) => (name === "playground" ? "playground-phone.png" : undefined));
    const width = await page.evaluate("document.documentElement.scrollWidth");
    expect(width, "no horizontal scrolling").toBeLessThanOrEqual(PHONE.width);
    await close();
  }, 180_000);
});
