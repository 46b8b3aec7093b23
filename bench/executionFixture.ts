// What the execution benchmark runs against: the echo agent registered twice through the API (a
// one-time and a per-task listing, both listed on-chain and indexed) and renters holding both
// credentials and an API key each.
import { type Hex, parseEther, toHex } from "viem";
import type { HDAccount } from "viem/accounts";
import { createApiKey } from "../devStack/client/createApiKey.ts";
import { registerAgent } from "../devStack/client/registerAgent.ts";
import { signIn } from "../devStack/client/signIn.ts";
import { ONE_TIME, PER_QUERY } from "../devStack/marketplace.ts";
import { rpcRequest } from "../devStack/startAnvil.ts";
import type { Stack } from "../devStack/startStack.ts";
import { devAccount } from "../lib/chain/devAccounts.ts";
import type { EchoAgent } from "./startEchoAgent.ts";

export type BenchModel = "one-time" | "per-task";

/** A listing's price: per task, what each run's debit charges. */
export const PRICE = parseEther("0.000001");
/** Each renter's per-task deposit: a million runs. */
const DEPOSIT = PRICE * 1_000_000n;

export type ExecutionFixture = {
  listings: Record<BenchModel, Hex>;
  /** One API key per renter; request i goes out under key i mod renters. */
  keys: string[];
  /** The renters, in the order of their keys. */
  renters: HDAccount[];
};

const echoManifest = (name: string, entrypointUrl: string) => ({
  name,
  category: "coding",
  description: "Answers each task with the task itself, at once",
  model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
  entrypoint_url: entrypointUrl,
  input_schema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  },
  output_schema: { type: "string" },
});

export async function setUpExecution(
  stack: Stack,
  echo: EchoAgent,
  renters: number,
): Promise<ExecutionFixture> {
  const creator = devAccount(2);
  const token = await signIn(stack.api.url, creator);
  const market = stack.marketplace;
  const listings = {} as Record<BenchModel, Hex>;
  const secrets: Record<string, string> = {};
  let lastBlock = 0n;
  for (const [model, onChainModel] of [
    ["one-time", ONE_TIME],
    ["per-task", PER_QUERY],
  ] as const) {
    const path = `/${model}`;
    const registered = await registerAgent(
      stack.api.url,
      token,
      echoManifest(`echo-${model}`, echo.url(path)),
    );
    if (!registered.webhook_secret) throw new Error("a connected agent came without its secret");
    secrets[path] = registered.webhook_secret;
    const { seed, metadata_uri, on_chain_listing_id } = registered.create_listing;
    const receipt = await market.mined(
      market.as(creator).write.createListing([seed, onChainModel, PRICE, metadata_uri]),
    );
    lastBlock = receipt.blockNumber;
    listings[model] = on_chain_listing_id;
  }
  await echo.setSecrets(secrets);

  // Past anvil's ten funded accounts: funded here.
  const accounts = Array.from({ length: renters }, (_, index) => devAccount(10 + index));
  const keys = await Promise.all(
    accounts.map(async (renter) => {
      await rpcRequest(stack.anvil.rpcUrl, "anvil_setBalance", [
        renter.address,
        toHex(parseEther("1000")),
      ]);
      await market.mined(
        market.as(renter).write.purchaseOneTime([listings["one-time"]], { value: PRICE }),
      );
      const receipt = await market.mined(
        market.as(renter).write.purchasePerQuery([listings["per-task"], PRICE], { value: DEPOSIT }),
      );
      if (receipt.blockNumber > lastBlock) lastBlock = receipt.blockNumber;
      return (await createApiKey(stack.api.url, renter, "bench")).key;
    }),
  );
  await stack.ponder.waitForBlock(lastBlock);
  return { listings, keys, renters: accounts };
}
