import { type HDAccount, mnemonicToAccount } from "viem/accounts";

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
