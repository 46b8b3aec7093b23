import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  serviceMarketplaceAbi,
  serviceMarketplaceBytecode,
} from "../contracts/serviceMarketplace.ts";
import { requireTransientStorage } from "./requireTransientStorage.ts";

/** Where the marketplace lives: what Ponder and the API need to find it. */
export type Deployment = {
  chainId: number;
  address: Address;
  startBlock: number;
  transactionHash: Hex;
};

/**
 * Who deploys the marketplace and holds its roles: the authority administers it, the operator (the
 * hot key on the API servers) debits and anchors runs, the fee recipient collects the protocol's fees,
 * the receipts signer's key signs every run's receipt (docs/receipts.md).
 */
export type DeploymentAccounts = {
  deployerKey: Hex;
  authority: Address;
  operator: Address;
  feeRecipient: Address;
  receiptsSigner: Address;
};

export type DeployOptions = DeploymentAccounts & { rpcUrl: string };

export async function deployMarketplace({
  rpcUrl,
  deployerKey,
  authority,
  operator,
  feeRecipient,
  receiptsSigner,
}: DeployOptions): Promise<Deployment> {
  const account = privateKeyToAccount(deployerKey);
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ transport });
  const walletClient = createWalletClient({ account, transport });
  const chainId = await publicClient.getChainId();
  await requireTransientStorage(publicClient);

  const transactionHash = await walletClient.deployContract({
    abi: serviceMarketplaceAbi,
    bytecode: serviceMarketplaceBytecode,
    args: [authority, operator, feeRecipient, receiptsSigner],
    chain: null,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: transactionHash });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`ServiceMarketplace deployment ${transactionHash} failed`);
  }
  return {
    chainId,
    address: getAddress(receipt.contractAddress),
    startBlock: Number(receipt.blockNumber),
    transactionHash,
  };
}
