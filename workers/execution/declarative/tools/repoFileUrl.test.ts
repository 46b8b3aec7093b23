import { describe, expect, it } from "vitest";
import { ToolRefusal } from "./builtInTool.ts";
import { repoFileUrl } from "./repoFileUrl.ts";

const BASE = "https://raw.githubusercontent.com";
const REPO = { owner: "octo", name: "hello", ref: "HEAD" };

describe("repoFileUrl", () => {
  it.each([
    ["src/index.ts", "/octo/hello/HEAD/src/index.ts"],
    ["./src//index.ts", "/octo/hello/HEAD/src/index.ts"],
    ["docs/a b#c?.md", "/octo/hello/HEAD/docs/a%20b%23c%3F.md"],
    ["%2e%2e/secret", "/octo/hello/HEAD/%252e%252e/secret"],
    ["..%2fsecret", "/octo/hello/HEAD/..%252fsecret"],
  ])("reads %j under the repository", (path, pathname) => {
    expect(new URL(repoFileUrl(BASE, REPO, path)).pathname).toBe(pathname);
  });

  it("keeps a base URL's own path and a ref's slashes", () => {
    const url = repoFileUrl(
      "https://files.example.com/raw/",
      { ...REPO, ref: "release/1" },
      "a.md",
    );
    expect(url).toBe("https://files.example.com/raw/octo/hello/release/1/a.md");
  });

  it.each([
    ["../other/repo/HEAD/secret", "the path leaves the repository (..)"],
    ["src/../../../other/hello/HEAD/x", "the path leaves the repository (..)"],
    ["/etc/passwd", "the path is absolute; give it from the repository's root"],
    ["..\\..\\other\\x", "the path holds a backslash or a control character"],
    ["src/\u0000x", "the path holds a backslash or a control character"],
    ["src/\nx", "the path holds a backslash or a control character"],
    ["./", "the path names no file"],
    ["x".repeat(1025), "the path is longer than 1024 characters"],
  ])("refuses %j", (path, message) => {
    expect(() => repoFileUrl(BASE, REPO, path)).toThrow(new ToolRefusal(message));
  });
});
