import {
  type Address,
  BaseError,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  hashMessage,
  isAddressEqual,
  numberToHex,
  type PublicClient,
  parseAbi,
  recoverMessageAddress,
} from "viem";
import { unavailableChain } from "../chain/unavailableChain.ts";

/** ERC-1271's answer for a valid signature: the selector of `isValidSignature`. */
const ERC1271_VALID = "0x1626ba7e";
const erc1271Abi = parseAbi([
  "function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)",
]);
/** The 32-byte suffix of an ERC-6492 signature (a wallet to deploy before checking). */
const ERC6492_SUFFIX = "6492".repeat(16);
/** Gas a wallet's `isValidSignature` may burn on the node per check: ample for real wallets. */
const ERC1271_GAS = 1_000_000n;

/**
 * EIP-191 `personal_sign` over `message` by `wallet`: an ordinary account's signature, checked
 * locally, or a deployed smart contract wallet's through ERC-1271 (asked of the chain only when the
 * address has code). ERC-6492 signatures (of wallets yet to be deployed) are refused unread: checking
 * one means simulating the deployment of code the caller chose. A chain that cannot be reached is 503
 * `service_unavailable`, never a false "invalid".
 */
export async function verifyWalletSignature(
  client: PublicClient,
  { wallet, message, signature }: { wallet: Address; message: string; signature: Hex },
): Promise<boolean> {
  if (await signedByKeyOf(wallet, message, signature)) return true;
  if (isErc6492Signature(signature)) return false;
  const code = await client.getCode({ address: wallet }).catch(unavailableChain);
  if (code === undefined || code === "0x") return false;
  return acceptedByContract(client, wallet, hashMessage(message), signature);
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

function isErc6492Signature(signature: Hex) {
  return signature.length >= 2 + 64 && signature.toLowerCase().endsWith(ERC6492_SUFFIX);
}

async function acceptedByContract(
  client: PublicClient,
  wallet: Address,
  hash: Hex,
  signature: Hex,
) {
  const call = {
    to: wallet,
    data: encodeFunctionData({
      abi: erc1271Abi,
      functionName: "isValidSignature",
      args: [hash, signature],
    }),
    gas: numberToHex(ERC1271_GAS),
  };
  let answer: Hex;
  try {
    // Once: viem would repeat a call that failed inside the node, and the wallet's code chose that.
    answer = await client.request(
      { method: "eth_call", params: [call, "latest"] },
      { retryCount: 0 },
    );
  } catch (error) {
    // A wallet that reverts or runs out of gas does not accept the signature; an outage is a 503.
    if (executionFailed(error)) return false;
    return unavailableChain(error);
  }
  try {
    return decodeFunctionResult({ abi: erc1271Abi, data: answer }) === ERC1271_VALID;
  } catch {
    return false; // an answer that is not a bytes4
  }
}

/** Whether the node ran the call and it failed: a revert (JSON-RPC code 3) or out of gas. */
function executionFailed(error: unknown) {
  return (
    error instanceof BaseError &&
    error.walk(
      (cause) =>
        (cause as { code?: unknown }).code === 3 ||
        (cause instanceof BaseError && /reverted|out\s*of\s*gas/i.test(cause.details)),
    ) !== null
  );
}
