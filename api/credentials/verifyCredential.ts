import type { Address, Hex, PublicClient } from "viem";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { ApiError } from "../errors.ts";

const RENTAL_MODELS = ["one_time", "subscription", "per_query"] as const;
const LISTING_STATUS_CLOSED = 3;

export type CredentialCheck =
  | { found: false }
  | {
      found: true;
      rentalModel: (typeof RENTAL_MODELS)[number];
      status: "active" | "expired" | "low_balance" | "revoked";
      expiresAt: number;
    };

/** The wallet's credential for a listing as the chain has it now: one read, no gas. */
export async function verifyCredential(
  client: PublicClient,
  marketplace: Address,
  { onChainListingId, wallet }: { onChainListingId: Hex; wallet: Address },
): Promise<CredentialCheck> {
  let state: Awaited<ReturnType<typeof readAccessState>>;
  try {
    state = await readAccessState(client, marketplace, onChainListingId, wallet);
  } catch {
    throw new ApiError("service_unavailable", "The chain could not be read; retry shortly");
  }
  if (!state.hasCredential) return { found: false };
  const rentalModel = RENTAL_MODELS[state.model] ?? "one_time";
  return {
    found: true,
    rentalModel,
    status: statusOf(state, rentalModel),
    expiresAt: state.expiresAt,
  };
}

function readAccessState(
  client: PublicClient,
  marketplace: Address,
  listingId: Hex,
  wallet: Address,
) {
  return client.readContract({
    address: marketplace,
    abi: serviceMarketplaceAbi,
    functionName: "getAccessState",
    args: [listingId, wallet],
  });
}

function statusOf(
  state: Awaited<ReturnType<typeof readAccessState>>,
  rentalModel: (typeof RENTAL_MODELS)[number],
) {
  if (state.isValid) return "active";
  if (state.isRevoked || state.listingStatus === LISTING_STATUS_CLOSED) return "revoked";
  return rentalModel === "per_query" ? "low_balance" : "expired";
}
