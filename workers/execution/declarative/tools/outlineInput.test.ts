import { describe, expect, it } from "vitest";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { PUBLIC_ONLY } from "../../outbound/outboundPolicy.ts";
import { outlineInput } from "./outlineInput.ts";

describe("outline_input", () => {
  it("outlines keys, types and sizes, three levels deep", async () => {
    const input = {
      repository: "octo/hello",
      files: [{ name: "a.ts", lines: 12, deep: { x: { y: 1 } } }],
    };
    const { context } = testContext("input_only", { policy: PUBLIC_ONLY, input });
    expect(await outlineInput.run({}, context)).toBe(
      [
        "object with 2 keys",
        "  repository: string of 10 characters",
        "  files: array of 1",
        "    [0]: object with 3 keys",
        "      name: string of 4 characters",
        "      lines: number 12",
        "      deep: object with 1 keys",
      ].join("\n"),
    );
  });

  it("outlines the part a pointer names, 25 entries of each", async () => {
    const input = { items: Array.from({ length: 40 }, (_, index) => index) };
    const { context } = testContext("input_only", { policy: PUBLIC_ONLY, input });
    const answer = await outlineInput.run({ pointer: "/items" }, context);
    expect(answer.split("\n")).toHaveLength(27);
    expect(answer).toMatch(/^array of 40\n {2}\[0\]: number 0\n/);
    expect(answer.endsWith("  … 15 more")).toBe(true);
  });

  it("keeps within the answer's size however wide the input", async () => {
    const input = Object.fromEntries(
      Array.from({ length: 25 }, (_, a) => [
        `k${a}`,
        Object.fromEntries(Array.from({ length: 25 }, (_, b) => [`k${b}`, { x: "y".repeat(b) }])),
      ]),
    );
    const { context } = testContext("input_only", {
      policy: PUBLIC_ONLY,
      input,
      maxResultBytes: 2048,
    });
    const answer = await outlineInput.run({}, context);
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(2048);
    expect(answer).toMatch(/\[\d+ more lines of outline not shown\]$/);
  });

  it("fails a pointer that names nothing", async () => {
    const { context } = testContext("input_only", { policy: PUBLIC_ONLY, input: { a: 1 } });
    expect((await endOf(outlineInput.run({ pointer: "/b" }, context))).kind).toBe("ToolFailure");
  });
});
