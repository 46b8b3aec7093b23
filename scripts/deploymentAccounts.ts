import type { Address, Hex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import {
  devAccount,
  devPrivateKey,
  isDevAccount,
  LOCAL_CHAIN_ID,
} from "../lib/chain/devAccounts.ts";

export type DeploymentAccounts = { deployerKey: Hex; authority: Address; feeRecipient: Address };

type Given = {
  DEPLOYER_PRIVATE_KEY?: Hex;
  AUTHORITY_ADDRESS?: Address;
  FEE_RECIPIENT_ADDRESS?: Address;
};

/**
 * Who deploys the marketplace, administers it and receives its fees. On the local chain, anvil's
 * public dev accounts unless given; on any other chain each must be given, and none may be one of
 * those accounts, whose keys everyone knows.
 */
export function deploymentAccounts(chainId: number, given: Given): DeploymentAccounts {
  if (chainId === LOCAL_CHAIN_ID) {
    return {
      deployerKey: given.DEPLOYER_PRIVATE_KEY ?? devPrivateKey(0),
      authority: given.AUTHORITY_ADDRESS ?? devAccount(0).address,
      feeRecipient: given.FEE_RECIPIENT_ADDRESS ?? devAccount(1).address,
    };
  }
  const { DEPLOYER_PRIVATE_KEY: deployerKey, AUTHORITY_ADDRESS: authority } = given;
  const { FEE_RECIPIENT_ADDRESS: feeRecipient } = given;
  const problems: string[] = [];
  const accounts: [string, Address | undefined][] = [
    ["DEPLOYER_PRIVATE_KEY", deployerKey && privateKeyToAddress(deployerKey)],
    ["AUTHORITY_ADDRESS", authority],
    ["FEE_RECIPIENT_ADDRESS", feeRecipient],
  ];
  for (const [name, address] of accounts) {
    if (address === undefined) problems.push(`${name} must be set on chain ${chainId}`);
    else if (isDevAccount(address)) {
      problems.push(`${name} is one of anvil's public dev accounts, whose key everyone knows`);
    }
  }
  if (problems.length > 0 || !deployerKey || !authority || !feeRecipient) {
    throw new Error(
      `Refusing to deploy on chain ${chainId} (anvil's dev accounts serve only the local chain ${LOCAL_CHAIN_ID}):\n  ${problems.join("\n  ")}`,
    );
  }
  return { deployerKey, authority, feeRecipient };
}
