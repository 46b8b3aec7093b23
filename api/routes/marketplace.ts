import { Hono } from "hono";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import type { AppEnv } from "../context.ts";
import { unavailableChain } from "../unavailableChain.ts";

/**
 * Where to pay, for anyone holding only the API's base URL: the chain, the contract and its ABI, and
 * the protocol's fee and pause as the chain says at the latest block.
 */
export const marketplaceRoutes = new Hono<AppEnv>();

const ABI = JSON.stringify(serviceMarketplaceAbi);

marketplaceRoutes.get("/", async (c) => {
  const { chain, settings } = c.get("deps");
  const contract = { address: chain.marketplace, abi: serviceMarketplaceAbi } as const;
  const [feeBasisPoints, paused] = await Promise.all([
    chain.client.readContract({ ...contract, functionName: "feeBasisPoints" }),
    chain.client.readContract({ ...contract, functionName: "paused" }),
  ]).catch(unavailableChain);
  return c.json({
    chain_id: chain.chainId,
    contract_name: "ServiceMarketplace",
    contract_address: chain.marketplace,
    abi_url: "/v1/marketplace/abi",
    protocol_fee_basis_points: Number(feeBasisPoints),
    paused,
    network: settings.network,
  });
});

marketplaceRoutes.get("/abi", (c) =>
  c.body(ABI, 200, {
    "Content-Type": "application/json",
    "Cache-Control": "public, max-age=300",
  }),
);
