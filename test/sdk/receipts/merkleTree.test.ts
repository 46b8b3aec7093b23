import { concat, type Hex, keccak256, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { buildMerkleTree, verifyMerkleProof } from "../../../sdk/src/receipts/merkleTree.ts";

const leafOf = (n: number) => keccak256(toHex(`leaf ${n}`));
const leavesOf = (count: number) => Array.from({ length: count }, (_, n) => leafOf(n));
/** `hash` with its last byte changed. */
const altered = (hash: Hex) =>
  `${hash.slice(0, -2)}${((Number.parseInt(hash.slice(-2), 16) + 1) % 256).toString(16).padStart(2, "0")}` as Hex;

// Written apart from the tree: numbers compared as numbers, levels built by halving.
const pairOf = (a: Hex, b: Hex) =>
  BigInt(a) <= BigInt(b) ? keccak256(concat([a, b])) : keccak256(concat([b, a]));

function referenceRoot(leaves: Hex[]): Hex {
  let level = [...leaves].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  while (level.length > 1) {
    level = Array.from({ length: Math.ceil(level.length / 2) }, (_, i) => {
      const [left, right] = [level[2 * i] as Hex, level[2 * i + 1]];
      return right === undefined ? left : pairOf(left, right);
    });
  }
  return level[0] as Hex;
}

/** OpenZeppelin's `MerkleProof.processProof`. */
const processProof = (leaf: Hex, proof: Hex[]) => proof.reduce(pairOf, leaf);

describe("buildMerkleTree", () => {
  it.each([1, 2, 3, 7, 100])(
    "with %i leaves: every proof folds its leaf into the root",
    (count) => {
      const leaves = leavesOf(count);
      const tree = buildMerkleTree(leaves);
      expect(tree.root).toBe(referenceRoot(leaves));
      for (const leaf of leaves) {
        const proof = tree.proofOf(leaf);
        expect(verifyMerkleProof(leaf, proof, tree.root)).toBe(true);
        expect(processProof(leaf, proof)).toBe(tree.root);
        // A tree of n leaves is ceil(log2 n) levels high; a promoted node adds no sibling.
        expect(proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(count)));
      }
    },
  );

  it.each([2, 3, 7, 100])("with %i leaves: a wrong leaf or sibling fails", (count) => {
    const leaves = leavesOf(count);
    const tree = buildMerkleTree(leaves);
    for (const [i, leaf] of leaves.entries()) {
      const proof = tree.proofOf(leaf);
      expect(verifyMerkleProof(leafOf(count + 1), proof, tree.root)).toBe(false);
      expect(verifyMerkleProof(altered(leaf), proof, tree.root)).toBe(false);
      expect(verifyMerkleProof(leaf, proof, altered(tree.root))).toBe(false);
      for (const s of proof.keys()) {
        const wrong = proof.map((sibling, j) => (j === s ? altered(sibling) : sibling));
        expect(verifyMerkleProof(leaf, wrong, tree.root)).toBe(false);
      }
      const other = leaves[(i + 1) % count] as Hex;
      expect(verifyMerkleProof(leaf, tree.proofOf(other), tree.root)).toBe(false);
    }
  });

  it("makes one leaf its own root, with an empty proof", () => {
    const tree = buildMerkleTree([leafOf(0)]);
    expect(tree.root).toBe(leafOf(0));
    expect(tree.proofOf(leafOf(0))).toEqual([]);
  });

  it("hashes two leaves as a sorted pair, whatever their order", () => {
    const [a, b] = [leafOf(0), leafOf(1)].sort() as [Hex, Hex];
    expect(buildMerkleTree([b, a]).root).toBe(keccak256(concat([a, b])));
    expect(buildMerkleTree([a, b]).proofOf(a)).toEqual([b]);
  });

  it("promotes an odd last node: of three sorted leaves, the last one's proof is one hash", () => {
    const [a, b, c] = leavesOf(3).sort() as [Hex, Hex, Hex];
    const tree = buildMerkleTree([c, a, b]);
    expect(tree.root).toBe(pairOf(pairOf(a, b), c));
    expect(tree.proofOf(c)).toEqual([pairOf(a, b)]);
    expect(tree.proofOf(a)).toEqual([b, c]);
  });

  it("is the same tree for the leaves in any order and any hex case", () => {
    const leaves = leavesOf(7);
    const tree = buildMerkleTree(leaves);
    const shuffled = buildMerkleTree(
      [...leaves].reverse().map((leaf) => leaf.toUpperCase() as Hex),
    );
    expect(shuffled.root).toBe(tree.root);
    expect(shuffled.proofOf(leaves[3] as Hex)).toEqual(tree.proofOf(leaves[3] as Hex));
  });

  it("refuses no leaves, a leaf not in the tree, and a leaf that is not 32 bytes", () => {
    expect(() => buildMerkleTree([])).toThrow(RangeError);
    expect(() => buildMerkleTree(leavesOf(3)).proofOf(leafOf(9))).toThrow(RangeError);
    expect(() => buildMerkleTree(["0x1234"])).toThrow(TypeError);
  });
});

describe("verifyMerkleProof", () => {
  it("answers false, never throws, for hex that is not 32 bytes", () => {
    const tree = buildMerkleTree(leavesOf(2));
    const proof = tree.proofOf(leafOf(0));
    expect(verifyMerkleProof("0x12", proof, tree.root)).toBe(false);
    expect(verifyMerkleProof(leafOf(0), ["0xzz" as Hex], tree.root)).toBe(false);
    expect(verifyMerkleProof(leafOf(0), proof, "0x" as Hex)).toBe(false);
  });
});
