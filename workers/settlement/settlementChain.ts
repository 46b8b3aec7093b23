import {
  type Chain,
  type ContractFunctionArgs,
  createPublicClient,
  createWalletClient,
  defineChain,
  type EncodeFunctionDataParameters,
  type EstimateContractGasParameters,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { Deployment } from "../../lib/chain/deployMarketplace.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";

/** Room over the estimate: a debit skipped at estimation may settle when mined, and cost more. */
const GAS_HEADROOM_PERCENT = 25n;

type Abi = typeof serviceMarketplaceAbi;
/** The one transaction settlement sends: debits, an anchor of receipts, or both. */
export type SettlementCall = {
  functionName: "settle";
  args: ContractFunctionArgs<Abi, "nonpayable", "settle">;
};

/** The marketplace as the settlement sees it: reads, and transactions signed by the operator's key. */
export function connectSettlementChain({
  rpcUrl,
  deployment,
  account,
  pollingIntervalMs,
}: {
  rpcUrl: string;
  deployment: Deployment;
  account: PrivateKeyAccount;
  pollingIntervalMs: number;
}) {
  const chain: Chain = defineChain({
    id: deployment.chainId,
    name: `chain ${deployment.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const client = createPublicClient({
    chain,
    transport: http(rpcUrl),
    pollingInterval: pollingIntervalMs,
    cacheTime: 0,
  }) as PublicClient;
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const marketplace = deployment.address;

  /**
   * Signs `call`, gives its hash to `record` before anything leaves this process, and broadcasts it
   * only if `record` agrees: whatever happens after, the hash is known and can be looked up, so a
   * crash between sending and reading the receipt is reconciled rather than sent blindly again.
   * Undefined when `record` declined. A revert the estimate foresees throws, having sent nothing.
   */
  async function send(call: SettlementCall, record: (hash: Hex) => Promise<boolean>) {
    const data = encodeFunctionData({
      abi: serviceMarketplaceAbi,
      ...call,
    } as EncodeFunctionDataParameters);
    // Estimated as a contract call, so a revert (paused, not the operator) names its error.
    const gas = await client.estimateContractGas({
      address: marketplace,
      abi: serviceMarketplaceAbi,
      account,
      ...call,
    } as EstimateContractGasParameters);
    const request = await wallet.prepareTransactionRequest({
      to: marketplace,
      data,
      gas: gas + (gas * GAS_HEADROOM_PERCENT) / 100n,
    });
    const serializedTransaction = await wallet.signTransaction(request);
    const hash = keccak256(serializedTransaction);
    if (!(await record(hash))) return undefined;
    await client.sendRawTransaction({ serializedTransaction });
    return hash;
  }

  /** The receipt of `hash`, waiting for it to be mined; throws after `timeoutMs`. */
  function receiptOf(hash: Hex, timeoutMs: number): Promise<TransactionReceipt> {
    return client.waitForTransactionReceipt({ hash, timeout: timeoutMs });
  }

  return {
    client,
    marketplace,
    account,
    startBlock: BigInt(deployment.startBlock),
    send,
    receiptOf,
  };
}

export type SettlementChain = ReturnType<typeof connectSettlementChain>;
