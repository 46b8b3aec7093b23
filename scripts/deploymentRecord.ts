// The record `npm run deploy` writes: where the marketplace lives (what the indexer, the API and the
// workers read) and, read back from the chain, who deployed it with which constructor arguments, and
// how it was compiled (what an explorer's verification form asks for).
import {
  type Address,
  createPublicClient,
  decodeAbiParameters,
  getAddress,
  type Hex,
  http,
  size,
  slice,
} from "viem";
import type { Deployment } from "../lib/chain/deployMarketplace.ts";
import {
  serviceMarketplaceAbi,
  serviceMarketplaceBytecode,
} from "../lib/contracts/serviceMarketplace.ts";
import type { Compilation } from "./verificationInput.ts";

export type DeploymentRecord = Deployment & {
  blockHash: Hex;
  deployer: Address;
  constructorArguments: {
    authority: Address;
    operator: Address;
    feeRecipient: Address;
    receiptsSigner: Address;
  };
  /** The same, ABI-encoded: what an explorer's form takes. */
  constructorArgumentsEncoded: Hex;
  compiler: Compilation;
  /** The standard-JSON input file beside the record, by its name. */
  verificationInput: string;
};

export async function deploymentRecord(
  rpcUrl: string,
  deployment: Deployment,
  compiler: Compilation,
  verificationInput: string,
): Promise<DeploymentRecord> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const hash = deployment.transactionHash;
  const [transaction, receipt] = await Promise.all([
    client.getTransaction({ hash }),
    client.getTransactionReceipt({ hash }),
  ]);
  if (!transaction.input.startsWith(serviceMarketplaceBytecode)) {
    throw new Error(`transaction ${hash} did not deploy this build's ServiceMarketplace`);
  }
  const constructorArgumentsEncoded = slice(transaction.input, size(serviceMarketplaceBytecode));
  const inputs = serviceMarketplaceAbi.find((item) => item.type === "constructor")?.inputs;
  if (!inputs) throw new Error("ServiceMarketplace's ABI has no constructor");
  const [authority, operator, feeRecipient, receiptsSigner] = decodeAbiParameters(
    inputs,
    constructorArgumentsEncoded,
  ) as readonly [Address, Address, Address, Address];
  return {
    ...deployment,
    blockHash: receipt.blockHash,
    deployer: getAddress(transaction.from),
    constructorArguments: { authority, operator, feeRecipient, receiptsSigner },
    constructorArgumentsEncoded,
    compiler,
    verificationInput,
  };
}
