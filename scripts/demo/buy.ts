// `npm run demo:buy -- <listing id> [--account N]`: what a newcomer does before running a task on the
// local chain of `npm start`: sign in with one of anvil's public dev accounts, buy the listing, and
// get an API key. The key alone goes to stdout (`KEY=$(npm run -s demo:buy -- lst_…)`); the rest
// to stderr.
import { parseArgs } from "node:util";
import { createApiKey } from "../../devStack/client/createApiKey.ts";
import { connectMarketplace } from "../../devStack/marketplace.ts";
import { requireDeployment } from "../../lib/chain/deploymentFile.ts";
import { devAccount, LOCAL_CHAIN_ID } from "../../lib/chain/devAccounts.ts";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import { parseStartEnv } from "../env.ts";
import { buyListing } from "./buyListing.ts";

/** A dev account no role of `npm start` holds (0 deploys, 1 takes fees, 8 settles, 9 creates). */
const DEFAULT_ACCOUNT = 3;

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { account: { type: "string", default: String(DEFAULT_ACCOUNT) } },
  });
  const listing = parseApiListingId(positionals[0] ?? "");
  if (!listing) throw new Error("usage: npm run demo:buy -- <listing id (lst_…)> [--account N]");
  const env = parseStartEnv();
  const deployment = await requireDeployment(env.DEPLOYMENT_FILE);
  if (deployment.chainId !== LOCAL_CHAIN_ID) {
    throw new Error("dev accounts buy on the local chain of `npm start` only");
  }
  const rpcUrl = env.RPC_URL ?? `http://127.0.0.1:${env.ANVIL_PORT}`;
  const apiUrl = `http://127.0.0.1:${env.API_PORT}`;
  const renter = devAccount(Number(values.account));

  const market = connectMarketplace(rpcUrl, deployment.address);
  console.error(`Dev account ${values.account} (${renter.address}):`);
  console.error(`  ${await buyListing(market, renter, listing)}`);
  const { key } = await createApiKey(apiUrl, renter, "demo");
  console.error("  signed in and created an API key:");
  console.log(key);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
