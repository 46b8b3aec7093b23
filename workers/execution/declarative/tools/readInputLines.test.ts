import { describe, expect, it } from "vitest";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { PUBLIC_ONLY } from "../../outbound/outboundPolicy.ts";
import { readInputLines } from "./readInputLines.ts";

const diff = "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-old\n+new\n";

describe("read_input_lines", () => {
  it("reads the numbered lines asked for", async () => {
    const { context } = testContext("input_only", { policy: PUBLIC_ONLY, input: diff });
    expect(await readInputLines.run({ from: 4, to: 5 }, context)).toBe(
      "[lines 4 to 5 of 5]\n4: -old\n5: +new\n",
    );
  });

  it("reads 200 lines from the first when no last is given", async () => {
    const text = Array.from({ length: 500 }, (_, index) => `${index + 1}`).join("\n");
    const { context } = testContext("input_only", { policy: PUBLIC_ONLY, inputText: text });
    const answer = await readInputLines.run({ from: 101 }, context);
    expect(answer.startsWith("[lines 101 to 300 of 500]\n101: 101\n")).toBe(true);
  });

  it("reads an object input as its indented JSON", async () => {
    const { context } = testContext("input_only", { policy: PUBLIC_ONLY, input: { a: 1 } });
    expect(await readInputLines.run({ from: 2 }, context)).toBe(
      '[lines 2 to 3 of 3]\n2:   "a": 1\n3: }\n',
    );
  });

  it("fails a line past the end", async () => {
    const { context } = testContext("input_only", { policy: PUBLIC_ONLY, input: diff });
    expect(await endOf(readInputLines.run({ from: 9 }, context))).toEqual({
      kind: "ToolFailure",
      message: "there is no line 9: the text has 5 lines",
    });
  });
});
