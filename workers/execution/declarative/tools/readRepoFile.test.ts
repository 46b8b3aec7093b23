import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer } from "../../../../test/support/pageServer.ts";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { readRepoFile } from "./readRepoFile.ts";

let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/octo/hello/HEAD/src/index.ts": { body: "export const hello = 1;\n" },
    "/octo/hello/v2/src/index.ts": { body: "export const hello = 2;\n" },
    "/other/secrets/HEAD/token.txt": { body: "not for this run" },
    "/octo/hello/HEAD/big.txt": { body: "B".repeat(50_000) },
  });
});
afterAll(() => server.close());

const context = (input: unknown, options: { maxResultBytes?: number } = {}) =>
  testContext("repo_scoped", {
    policy: server.policy,
    input: input as Record<string, unknown>,
    repositoryBaseUrl: server.url(""),
    ...options,
  }).context;

describe("read_repo_file", () => {
  it("reads a file of the repository the input names, at its ref", async () => {
    expect(
      await readRepoFile.run({ path: "src/index.ts" }, context({ repository: "octo/hello" })),
    ).toBe("export const hello = 1;\n");
    const tagged = context({ repository: "https://github.com/octo/hello", ref: "v2" });
    expect(await readRepoFile.run({ path: "./src/index.ts" }, tagged)).toBe(
      "export const hello = 2;\n",
    );
  });

  it("reads a long file a part at a time", async () => {
    const answer = await readRepoFile.run(
      { path: "big.txt" },
      context({ repository: "octo/hello" }, { maxResultBytes: 2048 }),
    );
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(2048);
    expect(answer).toMatch(/^\[characters 0 to \d+ of 50000; call again with offset/);
  });

  it("fails a file the repository does not have", async () => {
    expect(
      await endOf(readRepoFile.run({ path: "nope.md" }, context({ repository: "octo/hello" }))),
    ).toEqual({
      kind: "ToolFailure",
      message: "the repository has no file at that path",
    });
  });

  it.each([
    ["../../other/secrets/HEAD/token.txt", "the path leaves the repository (..)"],
    ["src/../../../other/secrets/HEAD/token.txt", "the path leaves the repository (..)"],
    ["/other/secrets/HEAD/token.txt", "the path is absolute; give it from the repository's root"],
    [
      "..\\..\\other\\secrets\\HEAD\\token.txt",
      "the path holds a backslash or a control character",
    ],
  ])("never leaves the repository: %j is refused, nothing sent", async (path, message) => {
    const before = server.received.length;
    expect(await endOf(readRepoFile.run({ path }, context({ repository: "octo/hello" })))).toEqual({
      kind: "ToolRefusal",
      message,
    });
    expect(server.received.length).toBe(before);
  });

  it("refuses when the input names no repository, or not one", async () => {
    expect((await endOf(readRepoFile.run({ path: "a" }, context({ source: "x" })))).message).toBe(
      "the run's input names no repository (input.repository: owner/name)",
    );
    expect(
      (await endOf(readRepoFile.run({ path: "a" }, context({ repository: "../other/secrets" }))))
        .message,
    ).toBe("the run's input.repository is not owner/name or a GitHub repository URL");
  });
});
