import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { devAccount, devPrivateKey, LOCAL_CHAIN_ID } from "../lib/chain/devAccounts.ts";
import { deploymentAccounts } from "./deploymentAccounts.ts";

const OWN_KEY = `0x${"5a".repeat(32)}` as const;
const OWN_AUTHORITY = "0x1111111111111111111111111111111111111111";
const OWN_RECIPIENT = "0x2222222222222222222222222222222222222222";

describe("deployment accounts", () => {
  it("default to anvil's public dev accounts on the local chain", () => {
    expect(deploymentAccounts(LOCAL_CHAIN_ID, {})).toEqual({
      deployerKey: devPrivateKey(0),
      authority: devAccount(0).address,
      feeRecipient: devAccount(1).address,
    });
  });

  it("must all be given on any other chain", () => {
    expect(() => deploymentAccounts(1, { DEPLOYER_PRIVATE_KEY: OWN_KEY })).toThrow(
      /AUTHORITY_ADDRESS must be set on chain 1[\s\S]*FEE_RECIPIENT_ADDRESS must be set on chain 1/,
    );
    expect(() => deploymentAccounts(8453, {})).toThrow(/DEPLOYER_PRIVATE_KEY must be set/);
  });

  it("are refused on any other chain when one is a public dev account, even given explicitly", () => {
    expect(() =>
      deploymentAccounts(1, {
        DEPLOYER_PRIVATE_KEY: devPrivateKey(0),
        AUTHORITY_ADDRESS: OWN_AUTHORITY,
        FEE_RECIPIENT_ADDRESS: devAccount(5).address,
      }),
    ).toThrow(
      /DEPLOYER_PRIVATE_KEY is one of anvil's public dev accounts[\s\S]*FEE_RECIPIENT_ADDRESS is one/,
    );
  });

  it("are the ones given, elsewhere", () => {
    const given = {
      DEPLOYER_PRIVATE_KEY: OWN_KEY,
      AUTHORITY_ADDRESS: OWN_AUTHORITY,
      FEE_RECIPIENT_ADDRESS: OWN_RECIPIENT,
    } as const;
    expect(deploymentAccounts(1, given)).toEqual({
      deployerKey: OWN_KEY,
      authority: OWN_AUTHORITY,
      feeRecipient: OWN_RECIPIENT,
    });
    expect(privateKeyToAddress(OWN_KEY)).not.toBe(devAccount(0).address);
  });
});
