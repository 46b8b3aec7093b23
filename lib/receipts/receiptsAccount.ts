import type { Hex } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { devPrivateKey, isDevAccount, LOCAL_CHAIN_ID, LOCAL_ROLES } from "../chain/devAccounts.ts";

/**
 * The key run receipts are signed with: `RECEIPTS_PRIVATE_KEY`, by default on the local chain the dev
 * account the local deployment names as receipts signer (`LOCAL_ROLES`). On any other chain it must be
 * given, and may not be one of anvil's public dev accounts, whose keys everyone knows.
 */
export function receiptsAccount(chainId: number, key: Hex | undefined): PrivateKeyAccount {
  if (chainId === LOCAL_CHAIN_ID) {
    return privateKeyToAccount(key ?? devPrivateKey(LOCAL_ROLES.receipts));
  }
  if (key === undefined) {
    throw new Error(`RECEIPTS_PRIVATE_KEY must be set to sign run receipts on chain ${chainId}`);
  }
  const account = privateKeyToAccount(key);
  if (isDevAccount(account.address)) {
    throw new Error(
      `RECEIPTS_PRIVATE_KEY is one of anvil's public dev accounts, whose key everyone knows: refused on chain ${chainId}`,
    );
  }
  return account;
}
