// The three books a per-task credential is kept in, read side by side so a test can check they
// agree: the chain's balance, its QueryConsumed debits, and the runs' cost_wei in app.runs.
import { and, eq, sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { Stack } from "../../devStack/startStack.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { runs } from "../../lib/db/appSchema.ts";

export type PerTaskLedger = {
  /** `perQueryBalances` on-chain now. */
  balance: bigint;
  /** Every `QueryConsumed` of this listing and buyer since the deployment: run id → price. */
  debits: Map<bigint, bigint>;
  /** Σ price of those debits. */
  debitedWei: bigint;
  /** Σ cost_wei of the credential's runs in app.runs. */
  costWei: bigint;
  /** The credential's runs by charge. */
  runsByCharge: Record<string, number>;
};

export async function perTaskLedger(
  stack: Stack,
  onChainListingId: Hex,
  renter: Address,
): Promise<PerTaskLedger> {
  const client = stack.marketplace.publicClient;
  const [[balance], logs, rows] = await Promise.all([
    client.readContract({
      address: stack.deployment.address,
      abi: serviceMarketplaceAbi,
      functionName: "perQueryBalances",
      args: [onChainListingId, renter],
    }),
    client.getContractEvents({
      address: stack.deployment.address,
      abi: serviceMarketplaceAbi,
      eventName: "QueryConsumed",
      args: { listingId: onChainListingId, buyer: renter },
      fromBlock: BigInt(stack.deployment.startBlock),
      toBlock: "latest",
      strict: true,
    }),
    stack.db
      .select({
        charge: runs.charge,
        runs: sql<number>`count(*)::int`,
        costWei: sql<string>`coalesce(sum(${runs.costWei}), 0)::text`,
      })
      .from(runs)
      .where(
        and(eq(runs.onChainListingId, onChainListingId), eq(runs.wallet, renter.toLowerCase())),
      )
      .groupBy(runs.charge),
  ]);
  const debits = new Map(logs.map((log) => [log.args.runId, log.args.price]));
  return {
    balance,
    debits,
    debitedWei: [...debits.values()].reduce((sum, price) => sum + price, 0n),
    costWei: rows.reduce((sum, row) => sum + BigInt(row.costWei), 0n),
    runsByCharge: Object.fromEntries(rows.map((row) => [row.charge, row.runs])),
  };
}
