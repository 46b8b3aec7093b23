// Pages of the dashboard in a real Chromium with a wallet injected, signed in as a person would:
// what the browser tests of the dashboard share.
import type { Browser, Page } from "playwright-core";
import type { PrivateKeyAccount } from "viem/accounts";
import type { Stack } from "../../devStack/startStack.ts";
import { expectAccessible } from "./accessibility.ts";
import { screenshotPath } from "./browser.ts";
import { injectWallet } from "./injectedWallet.ts";

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** A page of the dashboard at `path`, `account`'s wallet injected; closed with its context. */
export async function openDashboard(
  browser: Browser,
  stack: Stack,
  account: PrivateKeyAccount,
  { path = "/", viewport = DESKTOP }: { path?: string; viewport?: typeof DESKTOP } = {},
) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await injectWallet(page, account, stack.anvil.rpcUrl);
  await page.goto(`${stack.api.url}${path}`);
  return { page, close: () => context.close() };
}

/** Connects the injected wallet and signs in: the page asked for opens, titled `heading`. */
export async function connectAndSignIn(page: Page, heading: string) {
  await page.getByRole("heading", { name: "Connect a wallet" }).waitFor();
  await expectAccessible(page, "the connect prompt");
  await page.getByRole("main").getByRole("button", { name: "Connect browser wallet" }).click();
  await page.getByRole("button", { name: "Sign in with wallet" }).click();
  await page.getByRole("heading", { name: heading }).waitFor();
}

/** Saves a full-page screenshot `name` (see `screenshotPath`) into `dir`. */
export async function screenshot(page: Page, dir: string, name: string) {
  await page.screenshot({ path: screenshotPath(dir, name), fullPage: true });
}

/** The focused element's tag and text, as `H1 Catalogue`. */
export const focusedElement = (page: Page) =>
  page.evaluate('document.activeElement?.tagName + " " + document.activeElement?.textContent');

export const DONE = "Done: the marketplace has indexed the transaction.";
export const SITE_NAME = "Agent rental marketplace";
