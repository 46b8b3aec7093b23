// A creator's new version of an agent, on the real stack: registered through the API beside the
// first, made current by the creator's own `updateListing`, after which search, detail and runs
// follow the chain at once; the first version's content id still resolves, and a metadata_uri that
// names no registered version leaves the last one shown, flagged.
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { perTaskRenter, type Renter } from "../support/connectedListing.ts";
import { type DeclarativeListing, listDeclarativeAgent } from "../support/declarativeOnStack.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { settledJob, until } from "../support/registration.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 0, ponder: true });
const PRICE = parseEther("0.001");
const FIRST = {
  title: "Harbour Weather",
  description: "Tides and winds for the harbour, every morning.",
};
const SECOND = {
  title: "Coastal Forecaster",
  description: "Swell, tides and squalls along the whole coast.",
  category: "finance",
  sample_output: ["Swell 2 m from the west by noon."],
  input_schema: {
    type: "object",
    properties: { coast: { type: "string" } },
    required: ["coast"],
  },
};

let servers: ModelServers;
let listing: DeclarativeListing;
let renter: Renter;
let creatorApi: ReturnType<typeof http>;
let firstUri: string;

beforeAll(async () => {
  servers = await startModelServers(stack());
  await stack().addApi(servers.env);
  listing = await listDeclarativeAgent(stack(), servers, {
    name: "versioned",
    provider: "openai",
    price: PRICE,
    manifest: { ...FIRST, system_prompt: "You are the first version." },
  });
  renter = await perTaskRenter(stack(), listing, 10n * PRICE);
  creatorApi = http(stack().api.url, { bearer: await signIn(stack().api.url, devAccount(2)) });
  firstUri = (await creatorApi.get(`/v1/listings/${listing.agentId}`)).body.metadata_uri;
  return () => servers.stop();
});

/** The manifest of the listing's agent with `changes`, as its creator would send it. */
const manifestWith = (changes: Record<string, unknown>) => ({
  name: "versioned",
  category: "research",
  model: { provider: "openai", model: listing.model },
  input_schema: { type: "object" },
  output_schema: { type: "string" },
  vendor_credentials: { api_key: "sk-test-versioned-0123456789" },
  system_prompt: "You are the first version.",
  ...FIRST,
  ...changes,
});

const runOf = (input: object) =>
  renter.api.post("/v1/execute", { agent_id: listing.agentId, task: "Forecast", input });

/** What a run of the listing sent its model, as the vendor emulator received it. */
async function promptOfARun(): Promise<string> {
  servers.vendor.script(listing.model, [{ kind: "text", text: "Calm seas." }]);
  const run = await runOf({ coast: "west" });
  const failure = (await renter.api.get(`/v1/runs/${run.body.run_id}`)).body.failure;
  expect(run.body, failure).toMatchObject({ status: "completed" });
  const sent = servers.vendor.requests.filter((request) => request.model === listing.model);
  return JSON.stringify(sent.at(-1)?.body);
}

async function updateListing(metadataUri: string) {
  const market = stack().marketplace;
  const receipt = await market.mined(
    market.as(devAccount(2)).write.updateListing([listing.listingId, PRICE, metadataUri]),
  );
  await stack().ponder.waitForBlock(receipt.blockNumber);
  return receipt;
}

const searchTitles = async (q: string) =>
  (await renter.api.get(`/v1/listings?q=${encodeURIComponent(q)}`)).body.listings.map(
    (found: { title: string }) => found.title,
  );

describe("a new version of an agent", () => {
  it("is registered by the agent's creator only, keeping the agent's name", async () => {
    const path = `/v1/agents/${listing.agentId}/versions`;
    expectError(await renter.api.post(path, manifestWith({})), 403, "forbidden");
    expectError(
      await creatorApi.post(`/v1/agents/nobody-00000000/versions`, manifestWith({})),
      404,
      "not_found",
    );
    const renamed = await creatorApi.post(path, manifestWith({ name: "renamed" }));
    expect(renamed.status).toBe(202);
    expect((await settledJob(creatorApi, renamed.body.job_id)).body).toMatchObject({
      status: "failed",
      error: { code: "manifest_rejected", violations: [{ field: "name", rule: "unchanged" }] },
    });
    const same = await creatorApi.post(path, manifestWith({}));
    expect((await settledJob(creatorApi, same.body.job_id)).body).toMatchObject({
      status: "failed",
      error: { violations: [{ field: "manifest", rule: "new_version" }] },
    });
  });

  it("changes nothing until updateListing names it; then search, detail and runs follow at once", async () => {
    expect(await promptOfARun()).toContain("You are the first version.");
    servers.vendor.script(listing.model, [{ kind: "text", text: "Calm seas." }]);
    expect((await runOf({})).body.status).toBe("completed");
    const submitted = await creatorApi.post(
      `/v1/agents/${listing.agentId}/versions`,
      manifestWith({ ...SECOND, system_prompt: "You are the second version." }),
    );
    const job = (await settledJob(creatorApi, submitted.body.job_id)).body;
    expect(job).toMatchObject({
      status: "completed",
      result: {
        listing_id: listing.agentId,
        update_listing: {
          on_chain_listing_id: listing.listingId,
          price: PRICE.toString(),
          metadata_uri: expect.stringMatching(/^ipfs:\/\//),
        },
      },
    });
    const { metadata_uri: secondUri, price } = job.result.update_listing;

    expect(await searchTitles("squalls")).toEqual([]);
    expect(await promptOfARun()).toContain("You are the first version.");

    const before = (await renter.api.get(`/v1/listings/${listing.agentId}`)).body;
    await rpcRequest(stack().anvil.rpcUrl, "evm_increaseTime", [60]);
    await updateListing(secondUri);
    expect(BigInt(price)).toBe(PRICE);
    // The switch is one statement after the indexed block's notice; no cache keeps it from search.
    await until("search to show the new version", async () =>
      (await searchTitles("squalls")).includes(SECOND.title),
    );
    const detail = (await renter.api.get(`/v1/listings/${listing.agentId}`)).body;
    expect(detail).toMatchObject({
      title: SECOND.title,
      description: SECOND.description,
      category: [SECOND.category],
      sample_output: SECOND.sample_output,
      metadata_uri: secondUri,
      manifest_status: "current",
      shown_metadata_uri: secondUri,
    });
    expect(Date.parse(detail.last_updated)).toBeGreaterThan(Date.parse(before.last_updated));
    expect(await promptOfARun()).toContain("You are the second version.");
    // The input is checked against the second version's schema, not the first's compiled before.
    expectError(await runOf({}), 400, "invalid_request");

    for (const uri of [firstUri, secondUri]) {
      const cid = uri.replace("ipfs://", "");
      const gateway = await fetch(`${stack().api.url}/ipfs/${cid}`);
      expect(gateway.status).toBe(200);
      expect(await gateway.json()).toMatchObject({
        title: uri === firstUri ? FIRST.title : SECOND.title,
      });
      expect((await renter.api.get(`/v1/manifests/${cid}`)).status).toBe(200);
    }
  });

  it("a metadata_uri naming no registered version leaves the last one shown and run, flagged", async () => {
    const stranger = "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";
    await updateListing(stranger);
    await until("the detail to flag the unknown metadata_uri", async () => {
      const detail = (await renter.api.get(`/v1/listings/${listing.agentId}`)).body;
      return detail.manifest_status === "unrecognized" && detail;
    }).then((detail) =>
      expect(detail).toMatchObject({
        title: SECOND.title,
        metadata_uri: stranger,
        shown_metadata_uri: expect.not.stringMatching(stranger),
      }),
    );
    expect(await searchTitles("squalls")).toEqual([SECOND.title]);
    expect(await promptOfARun()).toContain("You are the second version.");
    // The input is checked against the second version's schema, not the first's compiled before.
    expectError(await runOf({}), 400, "invalid_request");

    await updateListing(firstUri);
    await until("the first version to be shown again", async () =>
      (await searchTitles("harbour")).includes(FIRST.title),
    );
    expect(await promptOfARun()).toContain("You are the first version.");
  });
});
