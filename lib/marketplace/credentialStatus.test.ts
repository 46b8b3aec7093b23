import { describe, expect, it } from "vitest";
import { type CredentialFacts, credentialStatus } from "./credentialStatus.ts";

const NOW = 1_800_000_000n;
const subscription: CredentialFacts = {
  rentalModel: "subscription",
  listingStatus: "active",
  isRevoked: false,
  expiresAt: NOW + 1n,
  balance: 0n,
  price: 10n,
  agreedPrice: 0n,
  exiting: false,
};
const perTask: CredentialFacts = {
  ...subscription,
  rentalModel: "per_query",
  balance: 10n,
  agreedPrice: 10n,
};

describe("the status of a credential", () => {
  it("is not_found without one", () => {
    expect(credentialStatus(undefined, NOW)).toBe("not_found");
  });

  it("expires when the chain's time reaches expires_at, as the contract rules", () => {
    expect(credentialStatus(subscription, NOW)).toBe("active");
    expect(credentialStatus(subscription, NOW + 1n)).toBe("expired");
    expect(credentialStatus(subscription, NOW + 2n)).toBe("expired");
  });

  it("never expires for one-time access", () => {
    const oneTime = { ...subscription, rentalModel: "one_time" as const, expiresAt: 0n };
    expect(credentialStatus(oneTime, NOW)).toBe("active");
  });

  it("is low_balance while its renter asks for the balance back (finding M-1), whatever it holds", () => {
    expect(credentialStatus({ ...perTask, balance: 1_000n, exiting: true }, NOW)).toBe(
      "low_balance",
    );
  });

  it("is low_balance once a per-task balance cannot pay for one task", () => {
    expect(credentialStatus(perTask, NOW)).toBe("active");
    expect(credentialStatus({ ...perTask, balance: 9n }, NOW)).toBe("low_balance");
  });

  it("pays the next task at the price agreed at the last deposit when the listing's is higher", () => {
    const raised = { ...perTask, price: 1_000n };
    expect(credentialStatus(raised, NOW)).toBe("active");
    expect(credentialStatus({ ...raised, balance: 9n }, NOW)).toBe("low_balance");
  });

  it("pays the next task at a cut price at once", () => {
    const cut = { ...perTask, price: 4n, balance: 5n };
    expect(credentialStatus(cut, NOW)).toBe("active");
    expect(credentialStatus({ ...cut, balance: 3n }, NOW)).toBe("low_balance");
  });

  it("is revoked when revoked or when the listing is closed, whatever else holds", () => {
    expect(credentialStatus({ ...subscription, isRevoked: true }, NOW)).toBe("revoked");
    expect(credentialStatus({ ...perTask, listingStatus: "closed", balance: 0n }, NOW)).toBe(
      "revoked",
    );
  });

  it("stays valid on a paused listing", () => {
    expect(credentialStatus({ ...subscription, listingStatus: "paused" }, NOW)).toBe("active");
  });
});
