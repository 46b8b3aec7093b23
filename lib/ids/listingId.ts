import { type Address, encodePacked, type Hex, keccak256 } from "viem";

/** API listing ids are the on-chain id in another dress: `lst_` and its 64 hex digits. */
const API_LISTING_ID = /^lst_([0-9a-f]{64})$/;

/** The contract's `deriveListingId`: `keccak256(abi.encodePacked(creator, seed))`. */
export function deriveListingId(creator: Address, seed: Hex): Hex {
  return keccak256(encodePacked(["address", "bytes32"], [creator, seed]));
}

export function toApiListingId(onChainListingId: Hex): string {
  return `lst_${onChainListingId.slice(2).toLowerCase()}`;
}

/** The on-chain id of an API listing id, or undefined when it is not one. */
export function parseApiListingId(apiListingId: string): Hex | undefined {
  const match = API_LISTING_ID.exec(apiListingId);
  return match ? `0x${match[1]}` : undefined;
}
