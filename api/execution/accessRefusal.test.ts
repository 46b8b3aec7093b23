import { describe, expect, it } from "vitest";
import type { CredentialFacts } from "../../lib/marketplace/credentialStatus.ts";
import { accessRefusal } from "./accessRefusal.ts";

const block = { number: 100n, timestamp: 1_800_000_000n };
const balance: CredentialFacts = {
  rentalModel: "per_query",
  listingStatus: "active",
  isRevoked: false,
  expiresAt: 0n,
  balance: 10n,
  price: 2n,
  agreedPrice: 2n,
  exiting: false,
};

describe("the refusal of a run", () => {
  it("lets a per-task balance that covers the next debit run", () => {
    expect(accessRefusal({ block, listing: "active", credential: balance })).toBeUndefined();
  });

  it("finding M-1: refuses a balance its renter asked back, as requireAccess does, whatever it holds", () => {
    const refusal = accessRefusal({
      block,
      listing: "active",
      credential: { ...balance, exiting: true },
    });
    expect(refusal).toMatchObject({
      code: "insufficient_balance",
      status: 403,
      onChainError: { contract: "ServiceMarketplace", error: "ExitPending" },
    });
  });
});
