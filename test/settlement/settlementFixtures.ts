// Runs as the run worker leaves them, on credentials really bought on the stack's chain: what the
// settlement tests hand to the settling processes.
import { randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { type Address, type Hex, parseEther, toHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { METADATA_URI } from "../../devStack/marketplace.ts";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { serviceMarketplaceAbi } from "../../lib/contracts/serviceMarketplace.ts";
import { anchors, type RunCharge, type RunStatus, runs } from "../../lib/db/appSchema.ts";
import { newRunId } from "../../lib/ids/randomIds.ts";
import { RENTAL_MODELS, type RentalModel } from "../../lib/marketplace/vocabulary.ts";
import { nextOnChainRunId } from "../../lib/runLedger/onChainRunId.ts";
import { until } from "../support/registration.ts";

/** A funded wallet of its own, so no test shares a balance with another. */
export async function newWallet(stack: Stack): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await rpcRequest(stack.anvil.rpcUrl, "anvil_setBalance", [
    account.address,
    toHex(parseEther("100")),
  ]);
  return account;
}

/** A listing of `model` at `price` wei, created on-chain by a fresh creator. */
export async function newListing(stack: Stack, model: RentalModel, price: bigint) {
  const creator = await newWallet(stack);
  const seed = toHex(randomBytes(32));
  const market = stack.marketplace.as(creator);
  await stack.marketplace.mined(
    market.write.createListing([seed, RENTAL_MODELS.indexOf(model), price, METADATA_URI]),
  );
  const listingId = await market.read.deriveListingId([creator.address, seed]);
  return { listingId, creator, price, model };
}

/** `count` renters, each holding a per-task balance of `deposit` on `listingId`. */
export async function perTaskRenters(
  stack: Stack,
  listing: { listingId: Hex; price: bigint },
  count: number,
  deposit: bigint,
): Promise<PrivateKeyAccount[]> {
  const renters = await Promise.all(Array.from({ length: count }, () => newWallet(stack)));
  for (const renter of renters) {
    await stack.marketplace.mined(
      stack.marketplace
        .as(renter)
        .write.purchasePerQuery([listing.listingId, listing.price], { value: deposit }),
    );
  }
  return renters;
}

export type FinishedRun = {
  /** The API's run id; a new one by default. */
  id?: string;
  /** The id the chain knows it by; the next of the database's by default. */
  onChainRunId?: bigint;
  wallet: Address;
  listingId: Hex;
  rentalModel: RentalModel;
  status: Extract<RunStatus, "completed" | "failed">;
  charge: RunCharge;
  reservedWei?: bigint;
};

/** Inserts runs in the state the run worker leaves them; returns their ids, in order. */
export async function insertFinishedRuns(stack: Stack, finished: FinishedRun[]) {
  const rows = await stack.db
    .insert(runs)
    .values(
      finished.map((run) => ({
        id: run.id ?? newRunId(),
        onChainRunId: run.onChainRunId?.toString() ?? nextOnChainRunId,
        wallet: run.wallet.toLowerCase(),
        onChainListingId: run.listingId,
        rentalModel: run.rentalModel,
        priority: "standard" as const,
        status: run.status,
        charge: run.charge,
        reservedWei: (run.reservedWei ?? 0n).toString(),
        requestHash: randomBytes(32).toString("hex"),
        output: run.status === "completed" ? { answer: "done" } : null,
        failure: run.status === "failed" ? "the agent failed" : null,
        durationMs: 5,
        startedAt: new Date(),
        finishedAt: new Date(),
      })),
    )
    .returning({ id: runs.id, onChainRunId: runs.onChainRunId });
  return rows.map((row) => ({ id: row.id, onChainRunId: BigInt(row.onChainRunId) }));
}

/** A completed per-task run of `wallet` on `listing`, awaiting the debit of the price it reserved. */
export function debitPendingRun(
  listing: { listingId: Hex; price: bigint },
  wallet: Address,
  id?: string,
): FinishedRun {
  return {
    id,
    wallet,
    listingId: listing.listingId,
    rentalModel: "per_query",
    status: "completed",
    charge: "debit_pending",
    reservedWei: listing.price,
  };
}

/** `count` runs awaiting their debit on `listing`, `renters` taking turns: their ids, in order. */
export async function insertDebitPendingRuns(
  stack: Stack,
  listing: { listingId: Hex; price: bigint },
  renters: { address: Address }[],
  count: number,
): Promise<{ ids: string[]; onChainRunIds: bigint[] }> {
  const inserted = await insertFinishedRuns(
    stack,
    Array.from({ length: count }, (_, i) =>
      debitPendingRun(listing, (renters[i % renters.length] as { address: Address }).address),
    ),
  );
  return {
    ids: inserted.map(({ id }) => id),
    onChainRunIds: inserted.map(({ onChainRunId }) => onChainRunId),
  };
}

export async function runRows(stack: Stack, ids: string[]) {
  return stack.db.select().from(runs).where(inArray(runs.id, ids));
}

export async function runRow(stack: Stack, id: string) {
  const [row] = await stack.db.select().from(runs).where(eq(runs.id, id));
  if (!row) throw new Error(`no run ${id}`);
  return row;
}

/**
 * Waits until these runs are settled for good: charge final and counted (by their debit, or by the
 * anchor they are assigned to, which the chain may not hold yet: see `anchoredRuns`).
 */
export function settledRuns(stack: Stack, ids: string[]) {
  return until(`${ids.length} runs settled`, async () => {
    const rows = await runRows(stack, ids);
    const done = rows.every(
      (row) => row.logged && row.charge !== "reserved" && row.charge !== "debit_pending",
    );
    return rows.length === ids.length && done && rows;
  });
}

/** Waits until the chain holds the anchor of each of these runs' receipts; returns their rows. */
export function anchoredRuns(stack: Stack, ids: string[]) {
  return until(`${ids.length} runs' receipts anchored`, async () => {
    const rows = await runRows(stack, ids);
    const roots = rows.flatMap((row) => (row.anchorRoot === null ? [] : [row.anchorRoot]));
    if (rows.length !== ids.length || roots.length !== ids.length) return false;
    const held = await stack.db
      .select({ root: anchors.root })
      .from(anchors)
      .where(and(inArray(anchors.root, roots), eq(anchors.status, "anchored")));
    return held.length === new Set(roots).size && rows;
  });
}

/** The chain's `RunsAnchored` logs since the deployment, of `roots` only when given. */
export function anchorLogs(stack: Stack, roots?: Hex[]) {
  return stack.marketplace.publicClient.getContractEvents({
    address: stack.deployment.address,
    abi: serviceMarketplaceAbi,
    eventName: "RunsAnchored",
    args: roots ? { root: roots } : undefined,
    fromBlock: BigInt(stack.deployment.startBlock),
    toBlock: "latest",
    strict: true,
  });
}

/** The runs and failures every anchor on the chain so far counted for `listingId`. */
export async function anchoredCounts(stack: Stack, listingId: Hex) {
  const total = { runs: 0, failed: 0 };
  for (const log of await anchorLogs(stack)) {
    for (const count of log.args.counts) {
      if (count.listingId.toLowerCase() !== listingId.toLowerCase()) continue;
      total.runs += count.runs;
      total.failed += count.failed;
    }
  }
  return total;
}

/** The marketplace's logs of `eventName` for these run ids, since the deployment. */
export function runEvents<E extends "QueryConsumed" | "QueryNotConsumed">(
  stack: Stack,
  eventName: E,
  onChainRunIds: bigint[],
) {
  return stack.marketplace.publicClient.getContractEvents({
    address: stack.deployment.address,
    abi: serviceMarketplaceAbi,
    eventName,
    args: { runId: onChainRunIds } as never,
    fromBlock: BigInt(stack.deployment.startBlock),
    toBlock: "latest",
    strict: true,
  });
}

export async function balanceOf(stack: Stack, listingId: Hex, renter: Address): Promise<bigint> {
  const [balance] = await stack.marketplace.publicClient.readContract({
    address: stack.deployment.address,
    abi: serviceMarketplaceAbi,
    functionName: "perQueryBalances",
    args: [listingId, renter],
  });
  return balance;
}

/** `application_name` of the session holding the settlement leadership (`settlement <pid>`), if any. */
export async function settlementLeader(stack: Stack): Promise<string | undefined> {
  const rows = await stack.db.execute<{ name: string }>(sql`
    select activity.application_name as name
    from pg_locks lock join pg_stat_activity activity on activity.pid = lock.pid
    where lock.locktype = 'advisory' and lock.granted
      and activity.application_name like 'settlement %'`);
  return rows[0]?.name;
}
