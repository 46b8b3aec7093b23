import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer } from "../../../../test/support/pageServer.ts";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { searchRepoFile } from "./searchRepoFile.ts";

let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/octo/vault/HEAD/Vault.sol": {
      body: 'function withdraw() external {\n  msg.sender.call{value: b}("");\n  balance = 0;\n}\n',
    },
  });
});
afterAll(() => server.close());

const context = () =>
  testContext("repo_scoped", {
    policy: server.policy,
    input: { repository: "octo/vault" },
    repositoryBaseUrl: server.url(),
  }).context;

describe("search_repo_file", () => {
  it("lists the numbered lines of a file of the input's repository containing the text", async () => {
    expect(await searchRepoFile.run({ path: "Vault.sol", text: ".call{" }, context())).toBe(
      '[1 line contains it]\n2:   msg.sender.call{value: b}("");\n',
    );
  });

  it("refuses a path out of the repository", async () => {
    expect(
      (await endOf(searchRepoFile.run({ path: "/etc/passwd", text: "root" }, context()))).kind,
    ).toBe("ToolRefusal");
  });
});
