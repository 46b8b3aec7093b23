import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer } from "../../../../test/support/pageServer.ts";
import { endOf, testContext } from "../../../../test/support/toolTestContext.ts";
import { readRepoFileLines } from "./readRepoFileLines.ts";

let server: Awaited<ReturnType<typeof startPageServer>>;
beforeAll(async () => {
  server = await startPageServer({
    "/octo/vault/HEAD/Vault.sol": {
      body: "pragma solidity ^0.8.0;\ncontract Vault {\n  uint x;\n}\n",
    },
  });
});
afterAll(() => server.close());

const context = () =>
  testContext("repo_scoped", {
    policy: server.policy,
    input: { repository: "octo/vault" },
    repositoryBaseUrl: server.url("/"),
  }).context;

describe("read_repo_file_lines", () => {
  it("reads numbered lines of a file of the input's repository", async () => {
    expect(await readRepoFileLines.run({ path: "Vault.sol", from: 2, to: 3 }, context())).toBe(
      "[lines 2 to 3 of 4]\n2: contract Vault {\n3:   uint x;\n",
    );
  });

  it("refuses a path out of the repository", async () => {
    expect(
      (await endOf(readRepoFileLines.run({ path: "../x/HEAD/y", from: 1 }, context()))).kind,
    ).toBe("ToolRefusal");
  });
});
