import { type Address, isAddressEqual } from "viem";
import { type HDAccount, mnemonicToAccount } from "viem/accounts";
import type { DeploymentAccounts } from "./deployMarketplace.ts";

/** anvil's chain id: the one chain where the public dev accounts may hold any role. */
export const LOCAL_CHAIN_ID = 31337;

/** The public mnemonic anvil funds by default: for the local chain only, never a real network. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

export function devAccount(index: number): HDAccount {
  return mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
}

export function devPrivateKey(index: number): `0x${string}` {
  const key = devAccount(index).getHdKey().privateKey;
  if (!key) throw new Error(`no private key for dev account ${index}`);
  return `0x${Buffer.from(key).toString("hex")}`;
}

/**
 * Which dev account holds each role of a deployment on the local chain. The operator, the hot key that
 * debits and logs runs, is not the authority, so the split between them holds locally too; account 8
 * holds no other role in `npm start` (the demo creator is account 9). The receipts key only signs, and
 * account 19 is no test's wallet.
 */
export const LOCAL_ROLES = {
  deployer: 0,
  authority: 0,
  operator: 8,
  feeRecipient: 1,
  receipts: 19,
} as const;

/** The deployment accounts of the local chain, by `LOCAL_ROLES`. */
export function localDeploymentAccounts(): DeploymentAccounts {
  return {
    deployerKey: devPrivateKey(LOCAL_ROLES.deployer),
    authority: devAccount(LOCAL_ROLES.authority).address,
    operator: devAccount(LOCAL_ROLES.operator).address,
    feeRecipient: devAccount(LOCAL_ROLES.feeRecipient).address,
    receiptsSigner: devAccount(LOCAL_ROLES.receipts).address,
  };
}

/** Whether `address` is one of the mnemonic's first 20 accounts, whose keys everyone knows. */
export function isDevAccount(address: Address): boolean {
  devAddresses ??= Array.from({ length: 20 }, (_, index) => devAccount(index).address);
  return devAddresses.some((dev) => isAddressEqual(dev, address));
}

let devAddresses: Address[] | undefined;
