import {
  type Address,
  type Hex,
  isAddressEqual,
  type PublicClient,
  recoverMessageAddress,
} from "viem";
import { unavailableChain } from "../unavailableChain.ts";

/**
 * EIP-191 `personal_sign` over `message` by `wallet`: an ordinary account's signature, checked
 * locally, or a smart contract wallet's through ERC-1271 / ERC-6492, which viem asks the chain.
 * A chain that cannot be reached is 503 `service_unavailable`, never a false "invalid".
 */
export async function verifyWalletSignature(
  client: PublicClient,
  { wallet, message, signature }: { wallet: Address; message: string; signature: Hex },
): Promise<boolean> {
  if (await signedByKeyOf(wallet, message, signature)) return true;
  // viem reads a failed verification call as "not valid": make sure the chain answers first.
  await client.getBlockNumber({ cacheTime: 0 }).catch(unavailableChain);
  return client.verifyMessage({ address: wallet, message, signature });
}

async function signedByKeyOf(wallet: Address, message: string, signature: Hex) {
  let signer: Address;
  try {
    signer = await recoverMessageAddress({ message, signature });
  } catch {
    return false; // not an ECDSA signature at all (length, encoding): perhaps a contract wallet's
  }
  return isAddressEqual(signer, wallet);
}
