import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  devAccount,
  devPrivateKey,
  LOCAL_CHAIN_ID,
  LOCAL_ROLES,
} from "../lib/chain/devAccounts.ts";
import { deploymentAccounts } from "./deploymentAccounts.ts";

const OWN_KEY = `0x${"5a".repeat(32)}` as const;
const OWN_AUTHORITY = "0x1111111111111111111111111111111111111111";
const OWN_RECIPIENT = "0x2222222222222222222222222222222222222222";
const OWN_OPERATOR = "0x3333333333333333333333333333333333333333";
const OWN_SIGNER = "0x4444444444444444444444444444444444444444";

describe("finding: safe deployment defaults (deployment accounts)", () => {
  it("default to anvil's public dev accounts on the local chain", () => {
    expect(deploymentAccounts(LOCAL_CHAIN_ID, {})).toEqual({
      deployerKey: devPrivateKey(0),
      authority: devAccount(0).address,
      operator: devAccount(LOCAL_ROLES.operator).address,
      feeRecipient: devAccount(1).address,
      receiptsSigner: devAccount(LOCAL_ROLES.receipts).address,
    });
  });

  it("give the local chain an operator apart from the deployer, the authority and the fee recipient", () => {
    const local = deploymentAccounts(LOCAL_CHAIN_ID, {});
    expect(local.operator).not.toBe(privateKeyToAddress(local.deployerKey));
    expect(local.operator).not.toBe(local.authority);
    expect(local.operator).not.toBe(local.feeRecipient);
    expect(deploymentAccounts(LOCAL_CHAIN_ID, { OPERATOR_ADDRESS: OWN_OPERATOR }).operator).toBe(
      OWN_OPERATOR,
    );
  });

  it("must all be given on any other chain", () => {
    expect(() => deploymentAccounts(1, { DEPLOYER_PRIVATE_KEY: OWN_KEY })).toThrow(
      /AUTHORITY_ADDRESS must be set on chain 1[\s\S]*FEE_RECIPIENT_ADDRESS must be set on chain 1/,
    );
    expect(() => deploymentAccounts(8453, {})).toThrow(/DEPLOYER_PRIVATE_KEY must be set/);
  });

  it("stop at startup without an operator on any other chain, naming OPERATOR_ADDRESS", () => {
    expect(() =>
      deploymentAccounts(1, {
        DEPLOYER_PRIVATE_KEY: OWN_KEY,
        AUTHORITY_ADDRESS: OWN_AUTHORITY,
        FEE_RECIPIENT_ADDRESS: OWN_RECIPIENT,
        RECEIPTS_SIGNER_ADDRESS: OWN_SIGNER,
      }),
    ).toThrow(/Refusing to deploy on chain 1[\s\S]*\n {2}OPERATOR_ADDRESS must be set on chain 1$/);
  });

  it("are refused on any other chain when one is a public dev account, even given explicitly", () => {
    expect(() =>
      deploymentAccounts(1, {
        DEPLOYER_PRIVATE_KEY: devPrivateKey(0),
        AUTHORITY_ADDRESS: OWN_AUTHORITY,
        OPERATOR_ADDRESS: OWN_OPERATOR,
        FEE_RECIPIENT_ADDRESS: devAccount(5).address,
        RECEIPTS_SIGNER_ADDRESS: OWN_SIGNER,
      }),
    ).toThrow(
      /DEPLOYER_PRIVATE_KEY is one of anvil's public dev accounts[\s\S]*FEE_RECIPIENT_ADDRESS is one/,
    );
    expect(() =>
      deploymentAccounts(1, {
        DEPLOYER_PRIVATE_KEY: OWN_KEY,
        AUTHORITY_ADDRESS: OWN_AUTHORITY,
        OPERATOR_ADDRESS: devAccount(LOCAL_ROLES.operator).address,
        FEE_RECIPIENT_ADDRESS: OWN_RECIPIENT,
        RECEIPTS_SIGNER_ADDRESS: OWN_SIGNER,
      }),
    ).toThrow(/OPERATOR_ADDRESS is one of anvil's public dev accounts, whose key everyone knows/);
  });

  it("are refused on any other chain when the operator is the authority", () => {
    expect(() =>
      deploymentAccounts(1, {
        DEPLOYER_PRIVATE_KEY: OWN_KEY,
        AUTHORITY_ADDRESS: OWN_AUTHORITY,
        OPERATOR_ADDRESS: OWN_AUTHORITY,
        FEE_RECIPIENT_ADDRESS: OWN_RECIPIENT,
        RECEIPTS_SIGNER_ADDRESS: OWN_SIGNER,
      }),
    ).toThrow(/OPERATOR_ADDRESS is the AUTHORITY_ADDRESS/);
  });

  it("are the ones given, elsewhere", () => {
    const given = {
      DEPLOYER_PRIVATE_KEY: OWN_KEY,
      AUTHORITY_ADDRESS: OWN_AUTHORITY,
      OPERATOR_ADDRESS: OWN_OPERATOR,
      FEE_RECIPIENT_ADDRESS: OWN_RECIPIENT,
      RECEIPTS_SIGNER_ADDRESS: OWN_SIGNER,
    } as const;
    expect(deploymentAccounts(1, given)).toEqual({
      deployerKey: OWN_KEY,
      authority: OWN_AUTHORITY,
      operator: OWN_OPERATOR,
      feeRecipient: OWN_RECIPIENT,
      receiptsSigner: OWN_SIGNER,
    });
    expect(privateKeyToAddress(OWN_KEY)).not.toBe(devAccount(0).address);
  });
});
