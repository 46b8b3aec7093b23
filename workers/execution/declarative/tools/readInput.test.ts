import { describe, expect, it } from "vitest";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { PUBLIC_ONLY } from "../../outbound/outboundPolicy.ts";
import { readInput } from "./readInput.ts";

const input = { repository: "octo/hello", files: [{ name: "a.ts", text: "export {}" }] };
const context = (options: Parameters<typeof testContext>[1]) =>
  testContext("input_only", options).context;

describe("read_input", () => {
  it("reads the whole input as indented JSON", async () => {
    expect(await readInput.run({}, context({ policy: PUBLIC_ONLY, input }))).toBe(
      JSON.stringify(input, null, 2),
    );
  });

  it("reads the part a JSON pointer names, a string as it is", async () => {
    const own = context({ policy: PUBLIC_ONLY, input });
    expect(await readInput.run({ pointer: "/files/0/text" }, own)).toBe("export {}");
    expect(await readInput.run({ pointer: "/files/0" }, own)).toBe(
      JSON.stringify(input.files[0], null, 2),
    );
  });

  it("reads a text input, and the text of an input_uri, a page at a time", async () => {
    const text = "word ".repeat(10_000);
    const own = context({ policy: PUBLIC_ONLY, inputText: text, maxResultBytes: 4096 });
    const first = await readInput.run({}, own);
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(4096);
    const next = Number(/offset (\d+)/.exec(first)?.[1]);
    expect(next).toBeGreaterThan(3000);
    expect(await readInput.run({ offset: next }, own)).toContain(`[characters ${next} to`);
  });

  it("reads the JSON of an input_uri by pointer", async () => {
    const own = context({ policy: PUBLIC_ONLY, inputText: '{"a":{"b":[1,2]}}' });
    expect(await readInput.run({ pointer: "/a/b/1" }, own)).toBe("2");
  });

  it("fails a pointer that names nothing, a URL among them: it reads nothing but the input", async () => {
    const own = context({ policy: PUBLIC_ONLY, input });
    for (const pointer of ["/missing", "https://169.254.169.254/latest/meta-data/", "/__proto__"]) {
      expect(await endOf(readInput.run({ pointer }, own))).toEqual({
        kind: "ToolFailure",
        message: "nothing in the input is at that pointer",
      });
    }
  });

  it("says when the run has no input", async () => {
    expect(await readInput.run({}, context({ policy: PUBLIC_ONLY }))).toBe("The run has no input.");
  });
});
