// The SDK as its users get it: `npm pack`ed, installed from the tarball into an empty directory, then
// used by a plain .mjs script and a CommonJS one under Node and, the same bundle, by a web page in headless Chromium
// (a page of another origin than the API's, as a dapp's would be); its type declarations type a
// TypeScript user's code. publint and arethetypeswrong find nothing to report in that tarball.
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { publint } from "publint";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONE_TIME } from "../../devStack/marketplace.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { launchBrowser } from "../support/browser.ts";
import { createApiKey, signIn } from "../support/http.ts";
import { useStack } from "../support/useStack.ts";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const stack = useStack({ api: 1 });
/** The packed SDK, as `npm publish` would upload it. */
let tarball: string;
/** The directory the tarball was installed into. */
let user: string;
let listingId: string;

beforeAll(async () => {
  await run("npm", ["run", "build", "--workspace", "sdk"], { cwd: root });
  const packed = join(stack().dir, "packed");
  await mkdir(packed);
  const { stdout } = await run(
    "npm",
    ["pack", "--workspace", "sdk", "--pack-destination", packed, "--json"],
    { cwd: root },
  );
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  tarball = join(packed, filename);

  user = join(stack().dir, "sdk-user");
  await mkdir(user);
  await writeFile(join(user, "package.json"), JSON.stringify({ name: "sdk-user", private: true }));
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], {
    cwd: user,
  });

  const onChainId = await stack().publishListing({
    creator: devAccount(2),
    seed: "packed-sdk",
    model: ONE_TIME,
    price: parseEther("0.02"),
    manifest: {
      name: "tarball-auditor",
      category: "coding",
      description: "Reviews Solidity for reentrancy bugs",
      sample_output: ["No critical findings."],
      creator_display_name: "Audit Labs",
    },
  });
  listingId = toApiListingId(onChainId);
});

it("has nothing for publint or arethetypeswrong to report, not even a suggestion", async () => {
  const packed = await readFile(tarball);
  const { messages } = await publint({
    pack: {
      tarball: packed.buffer.slice(packed.byteOffset, packed.byteOffset + packed.byteLength),
    },
    level: "suggestion",
  });
  expect(messages).toEqual([]);

  // attw exits non-zero when it finds a problem; its JSON report lists them either way.
  const attw = join(root, "node_modules/@arethetypeswrong/cli/dist/index.js");
  const { stdout } = await run(process.execPath, [attw, "--format", "json", tarball]).catch(
    (error: { stdout: string }) => error,
  );
  const { analysis } = JSON.parse(stdout) as { analysis: { problems: unknown[] } };
  expect(analysis.problems).toEqual([]);
});

it("installs from its tarball into an empty directory; a plain .mjs script searches with it", async () => {
  const { key } = await createApiKey(stack().api.url, devAccount(3));
  await writeFile(
    join(user, "search.mjs"),
    `import { ServiceClient } from "@service/sdk";
const client = new ServiceClient({ baseUrl: process.env.API_URL, apiKey: process.env.API_KEY });
const { listings, total } = await client.listings.search({ q: "solidity" });
console.log(JSON.stringify({ total, ids: listings.map((listing) => listing.id) }));
`,
  );
  const { stdout } = await run(process.execPath, ["search.mjs"], {
    cwd: user,
    env: { ...process.env, API_URL: stack().api.url, API_KEY: key },
  });
  expect(JSON.parse(stdout)).toEqual({ total: 1, ids: [listingId] });
});

it("is required by a CommonJS script as well, the same client", async () => {
  await writeFile(
    join(user, "search.cjs"),
    `const { ServiceClient, SDK_VERSION } = require("@service/sdk");
const client = new ServiceClient({ baseUrl: process.env.API_URL });
client.marketplace.get().then(({ chain_id }) => console.log(JSON.stringify({ chain_id, SDK_VERSION })));
`,
  );
  const { stdout } = await run(process.execPath, ["search.cjs"], {
    cwd: user,
    env: { ...process.env, API_URL: stack().api.url },
  });
  const { version } = JSON.parse(await readFile(join(root, "sdk/package.json"), "utf8"));
  expect(JSON.parse(stdout)).toEqual({ chain_id: 31337, SDK_VERSION: version });
});

it("types a TypeScript user's code, ESM or CommonJS, with the declarations it ships, and refuses a wrong use", async () => {
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  const compilerOptions = {
    strict: true,
    noEmit: true,
    module: "nodenext",
    target: "es2022",
    lib: ["es2022", "dom"],
    types: [],
  };
  const check = async (code: string, file = "typed.mts") => {
    await writeFile(join(user, file), code);
    await writeFile(
      join(user, "tsconfig.json"),
      JSON.stringify({ compilerOptions, files: [file] }),
    );
    return run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: user }).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
  };
  const use = `import { ServiceClient, ServiceRateLimitError, type SearchResult } from "@service/sdk";
const client = new ServiceClient({ baseUrl: "http://127.0.0.1", apiKey: "key" });
const found: SearchResult = await client.listings.search({ q: "solidity", sort: "rating" });
const first: string | undefined = found.listings[0]?.id;
const wait = (error: unknown): number | undefined =>
  error instanceof ServiceRateLimitError ? error.retryAfter : undefined;
`;
  expect(await check(use)).toBe("");
  expect(await check(use.replace('sort: "rating"', 'sort: "cheapest"'))).toMatch(
    /error TS\d+: [^\n]*"cheapest"/,
  );
  // `require` gets the CommonJS declarations: the same types.
  const required = `import sdk = require("@service/sdk");
const client = new sdk.ServiceClient({ baseUrl: "http://127.0.0.1", apiKey: "key" });
const pages: Promise<sdk.SearchResult> = client.listings.search({ sort: "rating" });
export = pages;
`;
  expect(await check(required, "typed.cts")).toBe("");
});

describe("in a browser", () => {
  let browser: Browser;
  // Launched here: the first launch on a machine may install Chromium.
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  let closeServer = () => {};
  afterAll(async () => {
    closeServer();
    await browser?.close();
  });

  it("runs the same bundle in Chromium, from a page of another origin, for listings.search", async () => {
    const token = await signIn(stack().api.url, devAccount(4));
    const bundle = await readFile(join(user, "node_modules/@service/sdk/dist/index.js"));
    const page = `<!doctype html><title>search</title><script type="module">
import { ServiceClient } from "./sdk.js";
const client = new ServiceClient({ baseUrl: ${JSON.stringify(stack().api.url)}, token: ${JSON.stringify(token)} });
client.listings.search({ q: "solidity" }).then(
  (result) => { window.searchResult = result; },
  (error) => { window.searchResult = { error: String(error) }; },
);
</script>`;
    const server = createServer((request, response) => {
      const isBundle = request.url === "/sdk.js";
      response.writeHead(200, {
        "content-type": isBundle ? "text/javascript" : "text/html; charset=utf-8",
      });
      response.end(isBundle ? bundle : page);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closeServer = () => server.close();

    const tab = await browser.newPage();
    await tab.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const result = await (
      await tab.waitForFunction(() => (globalThis as { searchResult?: unknown }).searchResult)
    ).jsonValue();
    expect(result).toMatchObject({ total: 1, listings: [{ id: listingId, price_eth: 0.02 }] });
  });
});
