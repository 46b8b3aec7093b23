import { describe, expect, it } from "vitest";
import { RUN_INTERRUPTED } from "../../lib/runLedger/runFailures.ts";
import { RUN_NOT_HANDED_OVER, RUN_NOT_STARTED } from "../../lib/runLedger/runNotStarted.ts";
import { countedOnChain } from "./countedRuns.ts";

const creator = `0x${"c0".repeat(20)}`;
const renter = `0x${"a1".repeat(20)}`;

describe("countedOnChain", () => {
  it("counts a renter's runs, completed or failed by the agent", () => {
    expect(countedOnChain({ wallet: renter, creator, failure: null })).toBe(true);
    expect(countedOnChain({ wallet: renter, creator, failure: "the agent failed" })).toBe(true);
    expect(countedOnChain({ wallet: renter, creator, failure: RUN_INTERRUPTED })).toBe(true);
  });

  it("does not count the listing's creator running its own listing, whatever the case of its address", () => {
    expect(countedOnChain({ wallet: creator, creator, failure: null })).toBe(false);
    expect(
      countedOnChain({
        wallet: creator,
        creator: creator.toUpperCase().replace("0X", "0x"),
        failure: null,
      }),
    ).toBe(false);
    expect(countedOnChain({ wallet: creator, creator, failure: "the agent failed" })).toBe(false);
  });

  it("does not count a run refused before it started: never served, no failure of the agent", () => {
    for (const failure of [RUN_NOT_STARTED, RUN_NOT_HANDED_OVER]) {
      expect(countedOnChain({ wallet: renter, creator, failure })).toBe(false);
    }
  });

  it("counts the runs of a listing no registered agent names", () => {
    expect(countedOnChain({ wallet: renter, creator: null, failure: null })).toBe(true);
  });
});
