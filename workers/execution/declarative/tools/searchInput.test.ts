import { describe, expect, it } from "vitest";
import { testContext } from "../../../../test/support/toolTestContext.ts";
import { PUBLIC_ONLY } from "../../outbound/outboundPolicy.ts";
import { searchInput } from "./searchInput.ts";

const statements =
  "2024-01-03 Coffee 4.50\n2024-01-04 OFFICE chair 220.00\n2024-02-01 office desk 410.00";

describe("search_input", () => {
  const { context } = testContext("input_only", { policy: PUBLIC_ONLY, input: statements });

  it("lists the numbered lines containing the text", async () => {
    expect(await searchInput.run({ text: "office" }, context)).toBe(
      "[1 line contains it]\n3: 2024-02-01 office desk 410.00\n",
    );
    expect(await searchInput.run({ text: "office", ignore_case: true }, context)).toBe(
      "[2 lines contain it]\n2: 2024-01-04 OFFICE chair 220.00\n3: 2024-02-01 office desk 410.00\n",
    );
  });

  it("takes the text literally: a pattern or a URL is just text to find", async () => {
    expect(await searchInput.run({ text: ".*" }, context)).toBe("No line contains that text.");
    expect(await searchInput.run({ text: "https://169.254.169.254/" }, context)).toBe(
      "No line contains that text.",
    );
  });

  it("searches the text of an input_uri", async () => {
    const own = testContext("input_only", { policy: PUBLIC_ONLY, inputText: statements }).context;
    expect(await searchInput.run({ text: "Coffee" }, own)).toBe(
      "[1 line contains it]\n1: 2024-01-03 Coffee 4.50\n",
    );
  });
});
