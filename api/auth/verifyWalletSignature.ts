import type { Address, Hex, PublicClient } from "viem";

/**
 * EIP-191 `personal_sign` over `message` by `wallet`: an ordinary account's signature, or a smart
 * contract wallet's through ERC-1271 (viem asks the chain). Malformed signatures are simply false.
 */
export async function verifyWalletSignature(
  client: PublicClient,
  { wallet, message, signature }: { wallet: Address; message: string; signature: Hex },
): Promise<boolean> {
  try {
    return await client.verifyMessage({ address: wallet, message, signature });
  } catch {
    return false;
  }
}
