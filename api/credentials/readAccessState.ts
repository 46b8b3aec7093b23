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

/**
 * Per reader, the reads of its latest block seen: one per listing, wallet, pause question and block
 * tag read at (the latest block itself, or `safe` or `finalized` as the node has them then).
 */
const readsOfBlock = new WeakMap<ChainReader, { block: bigint; reads: Map<string, StateRead> }>();

type Subject = { onChainListingId: Hex; wallet: Address };
type Options = { protocolPause?: boolean };
/** A block tag that lags the latest block: the node's safe or finalized block. */
export type SettledTag = "safe" | "finalized";

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

/**
 * The wallet's credential for a listing as the chain has it at its `tag` block, one `getAccessState`
 * read like `readAccessState`'s: requests that find the same `latest` block share it, a newer one
 * starts afresh. A chain that cannot be read is 503 `service_unavailable`.
 */
export async function readCredentialAt(
  reader: ChainReader,
  marketplace: Address,
  subject: Subject,
  tag: SettledTag,
  latest: ChainTime,
): Promise<CredentialFacts | undefined> {
  return (await readAt(latest, reader, marketplace, subject, {}, tag)).credential;
}

function grantsAccess({ block, listing, credential, protocolPaused }: AccessRead): boolean {
  return (
    listing === "active" &&
    credential !== undefined &&
    credentialStatus(credential, block.timestamp) === "active" &&
    protocolPaused !== true
  );
}

/** The state at `tag`: `block` itself, or the node's `safe` or `finalized` block while `block` is latest. */
async function readAt(
  block: ChainTime,
  reader: ChainReader,
  marketplace: Address,
  { onChainListingId, wallet }: Subject,
  { protocolPause = false }: Options,
  tag: "latest" | SettledTag = "latest",
): Promise<AccessRead> {
  let seen = readsOfBlock.get(reader);
  if (!seen || seen.block < block.number || seen.reads.size >= MAX_READS_PER_BLOCK) {
    seen = { block: block.number, reads: new Map() };
    readsOfBlock.set(reader, seen);
  }
  const key = `${tag}:${marketplace}:${onChainListingId}:${wallet}:${protocolPause}`.toLowerCase();
  let shared = seen.block === block.number ? seen.reads.get(key) : undefined;
  if (!shared) {
    const at = tag === "latest" ? toHex(block.number) : tag;
    const call = (data: Hex) =>
      reader.read("eth_call", [{ to: marketplace, data }, at]) as Promise<Hex>;
    shared = Promise.all([
      readState(call, onChainListingId, wallet, tag !== "latest"),
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
  if (state === undefined || state.listingStatus === 0) {
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

/**
 * The contract's `getAccessState(listingId, wallet)`, through `call` (an `eth_call` at one block).
 * Undefined when a settled block predates the marketplace's deployment (no code there: the call
 * answers `0x`); at the latest block that answer is still an error.
 */
async function readState(
  call: (data: Hex) => Promise<Hex>,
  onChainListingId: Hex,
  wallet: Address,
  mayPredateDeployment: boolean,
) {
  const args = [onChainListingId, wallet] as const;
  const data = await call(encodeFunctionData({ abi, functionName: "getAccessState", args }));
  if (data === "0x" && mayPredateDeployment) return undefined;
  return decodeFunctionResult({ abi, functionName: "getAccessState", data });
}

async function readPaused(call: (data: Hex) => Promise<Hex>): Promise<boolean> {
  const data = await call(encodeFunctionData({ abi, functionName: "paused" }));
  return decodeFunctionResult({ abi, functionName: "paused", data });
}
