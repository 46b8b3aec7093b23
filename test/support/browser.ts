// Headless Chromium from Debian, driven by playwright-core (no browser download); installed like
// nats-server when missing. The flags keep it from reaching for the network on its own.
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
