import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { devAccount, devPrivateKey, LOCAL_CHAIN_ID, LOCAL_ROLES } from "./devAccounts.ts";
import { operatorAccount } from "./operatorAccount.ts";

const OWN_KEY = `0x${"5a".repeat(32)}` as const;

describe("the operator's signer (OPERATOR_PRIVATE_KEY)", () => {
  it("defaults on the local chain to the dev account the local deployment names operator", () => {
    expect(operatorAccount(LOCAL_CHAIN_ID, undefined).address).toBe(
      devAccount(LOCAL_ROLES.operator).address,
    );
  });

  it("is the given key when there is one, on any chain", () => {
    expect(operatorAccount(LOCAL_CHAIN_ID, OWN_KEY).address).toBe(privateKeyToAddress(OWN_KEY));
    expect(operatorAccount(8453, OWN_KEY).address).toBe(privateKeyToAddress(OWN_KEY));
  });

  it("must be given on any other chain", () => {
    expect(() => operatorAccount(8453, undefined)).toThrow(
      "OPERATOR_PRIVATE_KEY must be set to settle runs on chain 8453",
    );
  });

  it("is never a dev-mnemonic key on another chain, whichever account", () => {
    for (const index of [LOCAL_ROLES.operator, 0, 19]) {
      expect(() => operatorAccount(1, devPrivateKey(index))).toThrow(
        /OPERATOR_PRIVATE_KEY is one of anvil's public dev accounts/,
      );
    }
  });
});
