import { describe, expect, it } from "vitest";
import { exactJson } from "./exactJson.ts";

describe("exactJson", () => {
  it("writes bigints as exact integer literals, everything else as JSON.stringify does", () => {
    const text = exactJson({
      run_id: "run_1",
      output: { findings: ['a "quoted" one'] },
      cost_wei: 12_345_678_901_234_567_890n,
      duration_ms: 42,
      skipped: undefined,
    });
    expect(text).toBe(
      '{"run_id":"run_1","output":{"findings":["a \\"quoted\\" one"]},"cost_wei":12345678901234567890,"duration_ms":42}',
    );
    // Valid JSON, whose parser keeps the literal's digits for those who ask for them.
    const digits = JSON.parse(text, (key, value, context?: { source?: string }) =>
      key === "cost_wei" ? context?.source : value,
    );
    expect(digits.cost_wei).toBe("12345678901234567890");
  });
});
