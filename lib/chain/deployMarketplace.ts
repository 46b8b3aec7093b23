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

export type DeployOptions = {
  rpcUrl: string;
  deployerKey: Hex;
  authority: Address;
  feeRecipient: Address;
};

export async function deployMarketplace({
  rpcUrl,
  deployerKey,
  authority,
  feeRecipient,
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
    args: [authority, feeRecipient],
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
