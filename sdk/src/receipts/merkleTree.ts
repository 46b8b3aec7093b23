import { concat, keccak256 } from "viem";
import type { Hex } from "./receiptTypes.ts";

/** A Merkle tree of 32-byte leaves, as OpenZeppelin's `MerkleProof` verifies it. */
export type MerkleTree = {
  root: Hex;
  /** The sibling hashes from `leaf` up to the root; throws for a leaf not in the tree. */
  proofOf(leaf: Hex): Hex[];
};

const BYTES32 = /^0x[0-9a-f]{64}$/;

/**
 * The tree of `leaves`, sorted ascending: each level hashes neighbours as a sorted pair, and an odd
 * last node goes up unchanged. One leaf is its own root.
 */
export function buildMerkleTree(leaves: readonly Hex[]): MerkleTree {
  if (leaves.length === 0) throw new RangeError("a Merkle tree needs at least one leaf");
  const sorted = leaves.map(bytes32).sort(ascending);
  const levels: Hex[][] = [sorted];
  for (let level = sorted; level.length > 1; ) {
    const next: Hex[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(right === undefined ? (level[i] as Hex) : hashPair(level[i] as Hex, right));
    }
    levels.push(next);
    level = next;
  }
  return {
    root: levels.at(-1)?.[0] as Hex,
    proofOf(leaf) {
      let index = sorted.indexOf(bytes32(leaf));
      if (index === -1) throw new RangeError(`${leaf} is not a leaf of this tree`);
      const proof: Hex[] = [];
      for (const level of levels.slice(0, -1)) {
        const sibling = level[index ^ 1];
        if (sibling !== undefined) proof.push(sibling);
        index >>= 1;
      }
      return proof;
    },
  };
}

/** Whether `proof` folds `leaf` into `root` (false for anything that is not 32-byte hex). */
export function verifyMerkleProof(leaf: Hex, proof: readonly Hex[], root: Hex): boolean {
  const values = [leaf, ...proof, root].map((value) => String(value).toLowerCase());
  if (!values.every((value) => BYTES32.test(value))) return false;
  let hash = values[0] as Hex;
  for (const sibling of values.slice(1, -1)) hash = hashPair(hash, sibling as Hex);
  return hash === values.at(-1);
}

/** keccak256 of the smaller then the larger: OpenZeppelin's `Hashes.commutativeKeccak256`. */
function hashPair(a: Hex, b: Hex): Hex {
  return keccak256(a < b ? concat([a, b]) : concat([b, a]));
}

function bytes32(value: Hex): Hex {
  const hex = value.toLowerCase();
  if (!BYTES32.test(hex)) throw new TypeError(`${value} is not a 32-byte hex value`);
  return hex as Hex;
}

// Lowercase hex of one length: string order is numeric order.
const ascending = (a: Hex, b: Hex) => (a < b ? -1 : a > b ? 1 : 0);
