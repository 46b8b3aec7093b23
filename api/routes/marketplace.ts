import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { unavailableChain } from "../chain/unavailableChain.ts";
import { ANY_REQUEST } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";

/**
 * Where to pay, for anyone holding only the API's base URL: the chain, the contract and its ABI, and
 * the protocol's fee and pause as the chain says at the latest block.
 */
export const marketplaceRoutes = new DescribedRoutes("/v1/marketplace", { public: true });

const ABI = JSON.stringify(serviceMarketplaceAbi);

marketplaceRoutes.get(
  "/",
  {
    tag: "Marketplace",
    summary: "The chain, contract and protocol state",
    description: "The protocol's fee and pause are read from the chain at the latest block.",
    security: "none",
    answer: { status: 200, description: "Where to pay", schema: answers.marketplace },
    errors: ANY_REQUEST,
  },
  async (c, reply) => {
    const { chain, settings } = c.get("deps");
    const contract = { address: chain.marketplace, abi: serviceMarketplaceAbi } as const;
    const [feeBasisPoints, paused] = await Promise.all([
      chain.client.readContract({ ...contract, functionName: "feeBasisPoints" }),
      chain.client.readContract({ ...contract, functionName: "paused" }),
    ]).catch(unavailableChain);
    return reply(c, {
      chain_id: chain.chainId,
      contract_name: "ServiceMarketplace",
      contract_address: chain.marketplace,
      abi_url: "/v1/marketplace/abi",
      protocol_fee_basis_points: Number(feeBasisPoints),
      paused,
      network: settings.network,
    });
  },
);

marketplaceRoutes.get(
  "/abi",
  {
    tag: "Marketplace",
    summary: "The contract's ABI",
    security: "none",
    answer: { status: 200, description: "The ABI", schema: answers.abi },
    errors: ["rate_limit_exceeded", "internal_error"],
  },
  (c) =>
    c.body(ABI, 200, {
      "Content-Type": "application/json",
      "Cache-Control": "public, max-age=300",
    }),
);
