import { describe, expect, it } from "vitest";
import { MAX_RETRY_DELAY_MS, RETRY_WINDOW_MS, retryDelayMs } from "./retrySchedule.ts";

describe("retryDelayMs", () => {
  it("waits the base after the first attempt and doubles after each later one", () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts, 5_000))).toEqual([
      5_000, 10_000, 20_000, 40_000,
    ]);
  });

  it("never waits more than an hour, so a day holds many attempts", () => {
    expect(retryDelayMs(30, 5_000)).toBe(MAX_RETRY_DELAY_MS);
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < RETRY_WINDOW_MS) elapsed += retryDelayMs(++attempts, 5_000);
    expect(attempts).toBeGreaterThan(25);
  });
});
