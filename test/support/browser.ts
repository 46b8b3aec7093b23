// Headless Chromium from Debian, driven by playwright-core (no browser download); installed like
// nats-server when missing. The flags keep it from reaching for the network on its own.
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { ensureDebianBinary } from "../../devStack/requireBinary.ts";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureDebianBinary("chromium", "chromium"),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Where a test saves its screenshot `name`: into docs/screenshots with UPDATE_SCREENSHOTS=1 (the
 * pictures the docs show), else into the test's own directory `dir`, to look at after a run.
 */
export function screenshotPath(dir: string, name: string): string {
  const docs = new URL("../../docs/screenshots", import.meta.url).pathname;
  return join(process.env.UPDATE_SCREENSHOTS === "1" ? docs : dir, name);
}
