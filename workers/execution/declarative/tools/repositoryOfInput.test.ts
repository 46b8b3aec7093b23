import { describe, expect, it } from "vitest";
import { repositoryOfInput } from "./repositoryOfInput.ts";

describe("repositoryOfInput", () => {
  it.each([
    ["octo/hello-world", { owner: "octo", name: "hello-world", ref: "HEAD" }],
    ["https://github.com/octo/hello.world", { owner: "octo", name: "hello.world", ref: "HEAD" }],
    ["https://github.com/octo/hello.git", { owner: "octo", name: "hello", ref: "HEAD" }],
    ["github.com/octo/hello/", { owner: "octo", name: "hello", ref: "HEAD" }],
  ])("reads %j", (repository, expected) => {
    expect(repositoryOfInput({ repository })).toEqual(expected);
  });

  it("reads input.ref as the branch, tag or commit", () => {
    expect(repositoryOfInput({ repository: "octo/hello", ref: "release/1.2" })).toEqual({
      owner: "octo",
      name: "hello",
      ref: "release/1.2",
    });
  });

  it.each([
    [{}, "the run's input names no repository (input.repository: owner/name)"],
    ["octo/hello", "the run's input names no repository (input.repository: owner/name)"],
    [{ repository: 42 }, "the run's input names no repository (input.repository: owner/name)"],
    [
      Object.create({ repository: "octo/hello" }),
      "the run's input names no repository (input.repository: owner/name)",
    ],
  ])("refuses an input naming none: %j", (input, message) => {
    expect(() => repositoryOfInput(input)).toThrow(message);
  });

  it.each([
    "octo",
    "octo/hello/extra",
    "../octo/hello",
    "octo/..",
    "-octo/hello",
    "https://gitlab.com/octo/hello",
    "https://github.com/octo/hello/tree/main",
    "https://github.com.evil.example/octo/hello",
  ])("refuses %j", (repository) => {
    expect(() => repositoryOfInput({ repository })).toThrow(
      "the run's input.repository is not owner/name or a GitHub repository URL",
    );
  });

  it.each(["../main", "main/../../other", "a b", "/main", "main//x", ""])(
    "refuses the ref %j",
    (ref) => {
      expect(() => repositoryOfInput({ repository: "octo/hello", ref })).toThrow(
        "the run's input.ref is not a branch, tag or commit name",
      );
    },
  );
});
