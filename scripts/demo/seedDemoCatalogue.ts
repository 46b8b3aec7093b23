import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Address, createPublicClient, createWalletClient, http, parseEther } from "viem";
import type { HDAccount } from "viem/accounts";
import { signIn } from "../../devStack/client/signIn.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { saveDemoAgentSecret } from "./demoAgentSecret.ts";
import { demoAgents } from "./demoAgents.ts";

type JobResult = {
  agent_id: string;
  listing_id: string;
  create_listing: { seed: `0x${string}`; metadata_uri: string };
  webhook_secret?: string;
};

/**
 * Registers and lists the demo agents the way a creator would (through the API, then on-chain), once
 * per deployment: a marker in DATA_DIR remembers it was done. The connected agent is called at
 * `connectedAgentUrl`; the webhook secret its registration returns is kept in DATA_DIR for it.
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
  if (
    await access(marker).then(
      () => true,
      () => false,
    )
  )
    return [];

  const token = await signIn(options.apiUrl, options.creator);
  const transport = http(options.rpcUrl);
  const publicClient = createPublicClient({ transport });
  const wallet = createWalletClient({ account: options.creator, transport });
  const listed: string[] = [];
  for (const agent of demoAgents(options.connectedAgentUrl)) {
    const result = await register(options.apiUrl, token, agent.manifest);
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
  await writeFile(marker, new Date().toISOString());
  return listed;
}

async function register(apiUrl: string, token: string, manifest: object): Promise<JobResult> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const submitted = await fetch(`${apiUrl}/v1/agents`, {
    method: "POST",
    headers,
    body: JSON.stringify(manifest),
  });
  const { job_id: jobId } = (await submitted.json()) as { job_id: string };
  for (let attempt = 0; attempt < 300; attempt++) {
    const job = (await (await fetch(`${apiUrl}/v1/jobs/${jobId}`, { headers })).json()) as {
      status: string;
      result?: JobResult;
      error?: unknown;
    };
    if (job.status === "completed" && job.result) return job.result;
    if (job.status === "failed")
      throw new Error(`demo agent rejected: ${JSON.stringify(job.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`demo registration ${jobId} did not finish`);
}
