import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Address, createPublicClient, createWalletClient, http, parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { registerAgent } from "../../devStack/client/registerAgent.ts";
import { signIn } from "../../devStack/client/signIn.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { saveDemoAgentSecret } from "./demoAgentSecret.ts";
import { demoAgents } from "./demoAgents.ts";

/**
 * Registers and lists the demo agents the way a creator would (through the API, then on-chain), once
 * per deployment: a marker in DATA_DIR remembers it was done, and what was listed. The connected
 * agent is called at `connectedAgentUrl`; the webhook secret its registration returns is kept in
 * DATA_DIR for it. Returns the demo listings, "Title (lst_…)", on every start.
 */
export async function seedDemoCatalogue(options: {
  apiUrl: string;
  rpcUrl: string;
  marketplace: Address;
  creator: HDAccount;
  dataDir: string;
  deploymentId: string;
  connectedAgentUrl: string;
}): Promise<string[]> {
  const marker = join(options.dataDir, `demo-seeded-${options.deploymentId}`);
  const seeded = await readFile(marker, "utf8").catch(() => undefined);
  // An older marker holds a date, not the listings.
  if (seeded !== undefined) return seeded.split("\n").filter((line) => line.includes("(lst_"));

  const token = await signIn(options.apiUrl, options.creator);
  const transport = http(options.rpcUrl);
  const publicClient = createPublicClient({ transport });
  const wallet = createWalletClient({ account: options.creator, transport });
  const listed: string[] = [];
  for (const agent of demoAgents(options.connectedAgentUrl)) {
    const result = await registerAgent(options.apiUrl, token, {
      ...agent.manifest,
      ...("vendorCredentials" in agent && { vendor_credentials: agent.vendorCredentials }),
    });
    if (result.webhook_secret) await saveDemoAgentSecret(options.dataDir, result.webhook_secret);
    const hash = await wallet.writeContract({
      address: options.marketplace,
      abi: serviceMarketplaceAbi,
      functionName: "createListing",
      chain: null,
      args: [
        result.create_listing.seed,
        agent.rentalModel,
        parseEther(agent.priceEth),
        result.create_listing.metadata_uri,
      ],
    });
    await publicClient.waitForTransactionReceipt({ hash });
    listed.push(`${agent.manifest.title} (${result.listing_id})`);
  }
  await writeFile(marker, `${listed.join("\n")}\n`);
  return listed;
}
