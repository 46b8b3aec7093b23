// A smart contract wallet on the stack's chain: contracts/test/mocks/ERC1271Wallet.sol, deployed from
// the forge build (`npm run build:contracts` compiles the mocks with the marketplace).
import { readFileSync } from "node:fs";
import { type Abi, type Address, createWalletClient, type Hex, hashMessage, http } from "viem";
import type { LocalAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import type { Stack } from "../../devStack/startStack.ts";

const artifact = JSON.parse(
  readFileSync(
    new URL("../../contracts/out/ERC1271Wallet.sol/ERC1271Wallet.json", import.meta.url),
    "utf8",
  ),
) as { abi: Abi; bytecode: { object: Hex } };

/** Deploys a wallet that accepts what `owner` signs, paid for by `owner`; returns its address. */
export async function deployErc1271Wallet(stack: Stack, owner: LocalAccount): Promise<Address> {
  const client = createWalletClient({
    account: owner,
    chain: foundry,
    transport: http(stack.anvil.rpcUrl),
  });
  const hash = await client.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode.object,
    args: [owner.address],
  });
  const receipt = await stack.marketplace.mined(Promise.resolve(hash));
  if (!receipt.contractAddress) throw new Error("the wallet was not deployed");
  return receipt.contractAddress;
}

/** What the wallet's owner signs for it: the EIP-191 hash of `message`, as the wallet checks it. */
export function signForWallet(owner: LocalAccount, message: string): Promise<Hex> {
  return owner.sign?.({ hash: hashMessage(message) }) ?? Promise.reject(new Error("cannot sign"));
}
