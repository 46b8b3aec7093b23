// The demo catalogue on a test's stack as `npm start` composes it (scripts/start.ts): the demo
// connected agent over HTTPS with the dev CA of the stack's directory, the vendor emulator answering
// the demo auditor, an API process with its workers in-process pointed at it, and the demo listings
// seeded through that API and indexed.

import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import type { Api } from "../../devStack/startApi.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { startVendorEmulator } from "../../devStack/vendorEmulator/startVendorEmulator.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { readDemoAgentSecret } from "../../scripts/demo/demoAgentSecret.ts";
import { startDemoAgent } from "../../scripts/demo/demoAgentServer.ts";
import { demoVendorAnswer } from "../../scripts/demo/demoVendorAnswers.ts";
import { seedDemoCatalogue } from "../../scripts/demo/seedDemoCatalogue.ts";

export type DemoCatalogue = {
  api: Api;
  /** Seeds again, as every `npm start` does: the listings named, "Title (lst_…)". */
  seed: () => Promise<string[]>;
  listed: string[];
  /** The listing id of the demo listing titled `title`. */
  listingId: (title: string) => string;
  stop: () => Promise<void>;
};

/** Starts it on `stack` (a chain, Postgres and Ponder, no NATS); `apiEnv` adds to the API's env. */
export async function startDemoCatalogue(
  stack: Stack,
  apiEnv: Record<string, string> = {},
): Promise<DemoCatalogue> {
  // As in scripts/start.ts: the demo agent first (its CA is what the workers trust), then the API.
  const demoAgent = await startDemoAgent({
    port: 0,
    certificates: await ensureDevCertificates(stack.dir),
    webhookSecret: () => readDemoAgentSecret(stack.dir),
  });
  const vendor = await startVendorEmulator({ answer: demoVendorAnswer });
  const api = await stack.addApi({
    OPENAI_BASE_URL: vendor.openaiBaseUrl,
    ANTHROPIC_BASE_URL: vendor.anthropicBaseUrl,
    ...apiEnv,
  });
  const seed = () =>
    seedDemoCatalogue({
      apiUrl: api.url,
      rpcUrl: stack.anvil.rpcUrl,
      marketplace: stack.deployment.address,
      creator: devAccount(9),
      dataDir: stack.dir,
      deploymentId: stack.deployment.transactionHash,
      connectedAgentUrl: demoAgent.url,
    });
  const listed = await seed();
  await stack.ponder.waitForBlock(await stack.marketplace.publicClient.getBlockNumber());
  return {
    api,
    seed,
    listed,
    listingId: (title) =>
      /\((lst_[0-9a-f]{64})\)/.exec(listed.find((line) => line.startsWith(title)) ?? "")?.[1] ?? "",
    stop: async () => {
      await demoAgent.stop();
      await vendor.stop();
    },
  };
}
