import { describe, expect, it } from "vitest";
import { type HoldingRuns, perTaskRoom } from "./perTaskRoom.ts";

const P = 1_000n;
const read = (tasks: bigint, price = P) => ({ blockNumber: 100n, balance: tasks * P, price });
let ids = 0;
/** `count` runs of one kind, each holding P and, debited, having cost P. */
const runs = (
  charge: HoldingRuns["charge"],
  count: bigint,
  extra: Partial<HoldingRuns> = {},
): HoldingRuns => ({
  charge,
  debitTx: null,
  runIds: Array.from({ length: Number(count) }, () => `run_${++ids}`),
  reservedWei: count * P,
  atPriceWei: count * P,
  costWei: charge === "debited" ? count * P : 0n,
  ...extra,
});
const none = new Map<string, boolean>();

describe("perTaskRoom", () => {
  it("covers a run while the balance, less every hold, pays for it", () => {
    expect(perTaskRoom(read(3n), [runs("reserved", 2n)], none)).toEqual({ verdict: "covers" });
    expect(perTaskRoom(read(2n), [runs("reserved", 2n)], none)).toEqual({ verdict: "short" });
  });

  it("refuses at once when runs being debited will take what they hold: waiting cannot help", () => {
    const holding = [runs("reserved", 1n), runs("debit_pending", 1n), runs("debited", 1n)];
    expect(perTaskRoom(read(3n), holding, none)).toEqual({ verdict: "short" });
  });

  it("counts runs debited after the block read at their cost", () => {
    const holding = [runs("debited", 1n, { reservedWei: 2n * P, costWei: P })];
    expect(perTaskRoom(read(2n), holding, none)).toEqual({ verdict: "covers" });
  });

  it("asks whether a debit transaction is in the balance read when that decides", () => {
    const holding = [runs("reserved", 1n), runs("debit_pending", 2n, { debitTx: "0xa" })];
    expect(perTaskRoom(read(3n), holding, none)).toEqual({
      verdict: "debits_unknown",
      transactions: ["0xa"],
    });
    // Mined by the block read: the balance already shows both debits.
    expect(perTaskRoom(read(3n), holding, new Map([["0xa", true]]))).toEqual({
      verdict: "covers",
    });
    expect(perTaskRoom(read(3n), holding, new Map([["0xa", false]]))).toEqual({
      verdict: "short",
    });
  });

  it("does not ask about a debit transaction that cannot change the answer", () => {
    const holding = [runs("reserved", 2n), runs("debit_pending", 1n, { debitTx: "0xb" })];
    expect(perTaskRoom(read(2n), holding, none)).toEqual({ verdict: "short" });
    expect(perTaskRoom(read(9n), holding, none)).toEqual({ verdict: "covers" });
  });

  it("waits for debits in flight when the price fell below what they hold", () => {
    const pending = runs("debit_pending", 1n, { atPriceWei: P / 2n });
    const holding = [runs("reserved", 1n), pending];
    expect(perTaskRoom(read(2n, P / 2n), holding, none)).toEqual({
      verdict: "debits_in_flight",
      inFlight: pending.runIds,
    });
  });
});
