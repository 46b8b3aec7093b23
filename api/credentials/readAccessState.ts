import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, toHex } from "viem";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { type CredentialFacts, credentialStatus } from "../../lib/marketplace/credentialStatus.ts";
import {
  type ListingStatus,
  listingStatusName,
  rentalModelName,
} from "../../lib/marketplace/vocabulary.ts";
import type { ChainTime } from "../chain/chainHeads.ts";
import type { ChainReader } from "../chain/chainReader.ts";
import { unavailableChain } from "../chain/unavailableChain.ts";
import { readChainTime } from "./readChainTime.ts";

/** A wallet's access to a listing as the chain has it at one block. */
export type AccessRead = {
  /** The block read: its number and its time, the clock statuses are judged at. */
  block: { number: bigint; timestamp: bigint };
  /** The listing's status; `none` when the chain has no listing at this id. */
  listing: ListingStatus | "none";
  /** Undefined when the wallet holds no credential for the listing (or there is no listing). */
  credential: CredentialFacts | undefined;
  /** Whether the protocol is paused (no run can be charged) at that block, when asked for. */
  protocolPaused?: boolean;
};

type StateRead = Promise<[Awaited<ReturnType<typeof readState>>, boolean | undefined]>;
const abi = serviceMarketplaceAbi;

/** Distinct reads kept for one block: a chain whose blocks stop coming must not grow them forever. */
const MAX_READS_PER_BLOCK = 10_000;

/** Per reader, the reads of its latest block seen: one per listing, wallet and pause question. */
const readsOfBlock = new WeakMap<ChainReader, { block: bigint; reads: Map<string, StateRead> }>();

type Subject = { onChainListingId: Hex; wallet: Address };
type Options = { protocolPause?: boolean };

/**
 * One `getAccessState` read at the chain's latest block: reads, no gas; with `protocolPause`,
 * `paused()` is read beside it at the same block. Requests that find the same latest block share
 * the read of their listing and wallet (a newer block starts afresh). Read at the head the node
 * announced, only an answer that grants access stands; any other is read again at the latest block
 * asked for, so a credential bought in a block not yet announced is never refused. A chain that
 * cannot be read is 503 `service_unavailable`.
 */
export async function readAccessState(
  reader: ChainReader,
  marketplace: Address,
  subject: Subject,
  options: Options = {},
): Promise<AccessRead> {
  const head = reader.heads?.latest();
  const first = await readAt(
    head ?? (await readChainTime(reader)),
    reader,
    marketplace,
    subject,
    options,
  );
  if (!head || grantsAccess(first)) return first;
  const latest = await readChainTime(reader, { fresh: true });
  if (latest.number === first.block.number) return first;
  return readAt(latest, reader, marketplace, subject, options);
}

function grantsAccess({ block, listing, credential, protocolPaused }: AccessRead): boolean {
  return (
    listing === "active" &&
    credential !== undefined &&
    credentialStatus(credential, block.timestamp) === "active" &&
    protocolPaused !== true
  );
}

async function readAt(
  block: ChainTime,
  reader: ChainReader,
  marketplace: Address,
  { onChainListingId, wallet }: Subject,
  { protocolPause = false }: Options,
): Promise<AccessRead> {
  let seen = readsOfBlock.get(reader);
  if (!seen || seen.block < block.number || seen.reads.size >= MAX_READS_PER_BLOCK) {
    seen = { block: block.number, reads: new Map() };
    readsOfBlock.set(reader, seen);
  }
  const key = `${marketplace}:${onChainListingId}:${wallet}:${protocolPause}`.toLowerCase();
  let shared = seen.block === block.number ? seen.reads.get(key) : undefined;
  if (!shared) {
    const call = (data: Hex) =>
      reader.read("eth_call", [{ to: marketplace, data }, toHex(block.number)]) as Promise<Hex>;
    shared = Promise.all([
      readState(call, onChainListingId, wallet),
      protocolPause ? readPaused(call) : undefined,
    ]);
    if (seen.block === block.number) {
      const reads = seen.reads;
      reads.set(key, shared);
      // A failed read is not kept: the next request tries the chain again.
      shared.catch(() => reads.delete(key));
    }
  }
  const [state, protocolPaused] = await shared.catch(unavailableChain);
  if (state.listingStatus === 0) {
    return { block, listing: "none", credential: undefined, protocolPaused };
  }
  const listing = listingStatusName(state.listingStatus);
  if (!state.hasCredential) return { block, listing, credential: undefined, protocolPaused };
  return {
    block,
    listing,
    protocolPaused,
    credential: {
      rentalModel: rentalModelName(state.model),
      listingStatus: listing,
      isRevoked: state.isRevoked,
      expiresAt: BigInt(state.expiresAt),
      balance: state.balance,
      price: state.price,
      agreedPrice: state.agreedPrice,
      exiting: state.reclaimableAt !== 0,
    },
  };
}

/** The contract's `getAccessState(listingId, wallet)`, through `call` (an `eth_call` at one block). */
async function readState(
  call: (data: Hex) => Promise<Hex>,
  onChainListingId: Hex,
  wallet: Address,
) {
  const args = [onChainListingId, wallet] as const;
  const data = await call(encodeFunctionData({ abi, functionName: "getAccessState", args }));
  return decodeFunctionResult({ abi, functionName: "getAccessState", data });
}

async function readPaused(call: (data: Hex) => Promise<Hex>): Promise<boolean> {
  const data = await call(encodeFunctionData({ abi, functionName: "paused" }));
  return decodeFunctionResult({ abi, functionName: "paused", data });
}
