import { type Address, type Hex, isAddressEqual } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import type { DeploymentAccounts } from "../lib/chain/deployMarketplace.ts";
import { isDevAccount, LOCAL_CHAIN_ID, localDeploymentAccounts } from "../lib/chain/devAccounts.ts";

type Given = {
  DEPLOYER_PRIVATE_KEY?: Hex;
  AUTHORITY_ADDRESS?: Address;
  OPERATOR_ADDRESS?: Address;
  FEE_RECIPIENT_ADDRESS?: Address;
  RECEIPTS_SIGNER_ADDRESS?: Address;
};

/**
 * Who deploys the marketplace, administers it, debits its runs, receives its fees and signs its receipts. On the local
 * chain, anvil's public dev accounts unless given (`LOCAL_ROLES`); on any other chain each must be
 * given, and none may be one of those accounts, whose keys everyone knows.
 */
export function deploymentAccounts(chainId: number, given: Given): DeploymentAccounts {
  if (chainId === LOCAL_CHAIN_ID) {
    const local = localDeploymentAccounts();
    return {
      deployerKey: given.DEPLOYER_PRIVATE_KEY ?? local.deployerKey,
      authority: given.AUTHORITY_ADDRESS ?? local.authority,
      operator: given.OPERATOR_ADDRESS ?? local.operator,
      feeRecipient: given.FEE_RECIPIENT_ADDRESS ?? local.feeRecipient,
      receiptsSigner: given.RECEIPTS_SIGNER_ADDRESS ?? local.receiptsSigner,
    };
  }
  const { DEPLOYER_PRIVATE_KEY: deployerKey, AUTHORITY_ADDRESS: authority } = given;
  const { OPERATOR_ADDRESS: operator, FEE_RECIPIENT_ADDRESS: feeRecipient } = given;
  const { RECEIPTS_SIGNER_ADDRESS: receiptsSigner } = given;
  const problems: string[] = [];
  const accounts: [string, Address | undefined][] = [
    ["DEPLOYER_PRIVATE_KEY", deployerKey && privateKeyToAddress(deployerKey)],
    ["AUTHORITY_ADDRESS", authority],
    ["OPERATOR_ADDRESS", operator],
    ["FEE_RECIPIENT_ADDRESS", feeRecipient],
    ["RECEIPTS_SIGNER_ADDRESS", receiptsSigner],
  ];
  for (const [name, address] of accounts) {
    if (address === undefined) problems.push(`${name} must be set on chain ${chainId}`);
    else if (isDevAccount(address)) {
      problems.push(`${name} is one of anvil's public dev accounts, whose key everyone knows`);
    }
  }
  if (operator && authority && isAddressEqual(operator, authority)) {
    problems.push(
      "OPERATOR_ADDRESS is the AUTHORITY_ADDRESS: the key on the API servers would administer the protocol",
    );
  }
  if (
    problems.length > 0 ||
    !deployerKey ||
    !authority ||
    !operator ||
    !feeRecipient ||
    !receiptsSigner
  ) {
    throw new Error(
      `Refusing to deploy on chain ${chainId} (anvil's dev accounts serve only the local chain ${LOCAL_CHAIN_ID}):\n  ${problems.join("\n  ")}`,
    );
  }
  return { deployerKey, authority, operator, feeRecipient, receiptsSigner };
}
