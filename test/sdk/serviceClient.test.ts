// @service/sdk against the real stack: a renter who bought a per-task balance with viem runs tasks
// with `execute` and `executeStream`, reads listings, credentials and runs, and reviews the listing;
// a creator replies to the review, registers an
// agent and manages API keys; every failure arrives as its typed error, a 429's `retryAfter` from a
// real rate limit; the client renews its wallet's JWT across an expiry and retries a 503 from a
// chain that stops and comes back.
import { parseEther } from "viem";
import { describe, expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import {
  ServiceAccessError,
  ServiceAPIError,
  ServiceAuthError,
  ServiceClient,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceSigningRefusedError,
} from "../../sdk/src/index.ts";
import { behaving } from "../support/behavingAgent.ts";
import { EVERY_METHOD } from "../support/countingRpcProxy.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { declarativeManifest, until } from "../support/registration.ts";

const PRICE = parseEther("0.01");
/** Behind the chain proxy, issuing JWTs valid 5 s. */
let fragileApi: Api;
/** Three requests a minute per caller. */
let strictApi: Api;
const { stack, proxy, listing, addRenter } = usePerTaskAgentOnStack({
  name: "sdk-summariser",
  price: PRICE,
  chainProxy: true,
  startProcesses: async () => {
    [fragileApi, strictApi] = await Promise.all([
      stack().addApi({ RPC_URL: proxy().url, JWT_LIFETIME_SECONDS: "5" }),
      stack().addApi({ RATE_LIMIT_PER_MINUTE: "3" }),
      stack().addWorker(),
    ]);
  },
});

/** A `fetch` that records each answer's status and the paths asked. */
function recordingFetch(onAnswer: (path: string, status: number) => void = () => {}) {
  const answers: { path: string; status: number }[] = [];
  const send: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const path = new URL(String(input)).pathname;
    answers.push({ path, status: response.status });
    onAnswer(path, response.status);
    return response;
  };
  return { send, answers };
}

async function rejection(promise: Promise<unknown>): Promise<ServiceAPIError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ServiceAPIError);
  return error as ServiceAPIError;
}

describe("a renter with a wallet account", () => {
  it("runs a task bought with viem, synchronously and streamed, and reads the run and credential", async () => {
    const renter = await addRenter(PRICE * 3n);
    const client = new ServiceClient({ baseUrl: stack().api.url, account: renter.account });

    const result = await client.execute({ agent_id: listing().agentId, task: behaving() });
    expect(result).toMatchObject({
      agent_id: listing().agentId,
      status: "completed",
      output: { summary: "done" },
      cost_wei: PRICE,
    });

    const events = [];
    for await (const event of client.executeStream({
      agent_id: listing().agentId,
      task: behaving({ deltas: ["one ", "two"], output: { summary: "one two" } }),
    })) {
      events.push(event);
    }
    expect(events).toEqual([
      { event: "output", data: { delta: "one " } },
      { event: "output", data: { delta: "two" } },
      {
        event: "done",
        data: {
          run_id: expect.stringMatching(/^run_/),
          status: "completed",
          cost_wei: PRICE,
          duration_ms: expect.any(Number),
        },
      },
    ]);

    expect(await client.runs.get(result.run_id)).toMatchObject({
      run_id: result.run_id,
      status: "completed",
      cost_wei: PRICE,
    });
    expect(await client.credentials.verify(listing().agentId)).toMatchObject({
      listing_id: listing().agentId,
      rental_model: "per_query",
      status: "active",
      valid: true,
      on_chain_verified: true,
    });
    expect(await client.credentials.list()).toMatchObject({
      credentials: [{ listing_id: listing().agentId, status: "active" }],
      total: 1,
    });
  });

  it("reviews the listing it ran a task on, and reads the creator's reply", async () => {
    const renter = await addRenter(PRICE);
    const client = new ServiceClient({ baseUrl: stack().api.url, account: renter.account });
    await client.execute({ agent_id: listing().agentId, task: behaving() });

    const review = await client.listings.review(listing().agentId, { rating: 5, text: "Quick" });
    expect(review).toMatchObject({ listing_id: listing().agentId, rating: 5, reply: null });
    const creator = new ServiceClient({ baseUrl: stack().api.url, account: devAccount(2) });
    await creator.listings.reply(listing().agentId, review.id, "Glad it helped");
    const page = await client.listings.reviews(listing().agentId, { limit: 100 });
    expect(page.reviews.find((one) => one.id === review.id)?.reply?.text).toBe("Glad it helped");
    expect((await client.listings.get(listing().agentId)).review_count).toBe(page.total);
  });

  it("finds the listing by search and by id, and gets the execute tool in both vendors' formats", async () => {
    const renter = await addRenter(PRICE);
    const client = new ServiceClient({ baseUrl: stack().api.url, token: renter.bearer });

    const found = await client.listings.search({ q: "answers as its task says", limit: 100 });
    expect(found.listings.map((summary) => summary.id)).toContain(listing().agentId);
    expect(await client.listings.get(listing().agentId)).toMatchObject({
      id: listing().agentId,
      status: "active",
      on_chain_id: listing().listingId,
      price_eth: 0.01,
    });
    expect(await new ServiceClient({ baseUrl: stack().api.url }).marketplace.get()).toMatchObject({
      chain_id: 31337,
      contract_address: stack().deployment.address,
      network: "test",
    });
    expect(await client.marketplace.abi()).toContainEqual(
      expect.objectContaining({ type: "function", name: "purchasePerQuery" }),
    );
    expect(await client.tools.definition("openai")).toMatchObject({
      type: "function",
      function: { name: "execute_agent" },
    });
    expect(await client.tools.definition("anthropic")).toMatchObject({
      name: "execute_agent",
      input_schema: { required: ["agent_id", "task"] },
    });
  });

  it("stops reading a stream when its signal aborts; the run itself completes", async () => {
    const renter = await addRenter(PRICE);
    const client = new ServiceClient({ baseUrl: stack().api.url, account: renter.account });
    const controller = new AbortController();
    const deltas = ["a", "b", "c", "d", "e"];
    const seen: string[] = [];

    const reading = (async () => {
      for await (const event of client.executeStream(
        {
          agent_id: listing().agentId,
          task: behaving({ deltas, deltaGapMs: 400, output: { summary: "abcde" } }),
        },
        { signal: controller.signal },
      )) {
        if (event.event === "output") seen.push(event.data.delta);
        controller.abort();
      }
    })();
    const error = await reading.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect((error as Error).name).toBe("AbortError");
    expect(seen).toEqual(["a"]);

    // Its one run's price spent: the run went on to completion and was charged.
    await until(
      "the run to be charged",
      async () => (await client.credentials.verify(listing().agentId)).status === "low_balance",
    );
  });
});

describe("a creator", () => {
  it("registers an agent and waits for its job; a rejected manifest's job says why", async () => {
    const client = new ServiceClient({ baseUrl: stack().api.url, account: devAccount(5) });

    const queued = await client.agents.register(declarativeManifest("sdk-registered"));
    expect(queued.status).toBe("queued");
    const job = await client.jobs.wait(queued.job_id);
    expect(job).toMatchObject({
      status: "completed",
      result: { agent_id: expect.stringContaining("sdk-registered"), listing_id: /^lst_/ },
    });
    expect(await client.jobs.get(queued.job_id)).toEqual(job);

    const rejected = await client.agents.register({ name: "Not Kebab" });
    expect(await client.jobs.wait(rejected.job_id)).toMatchObject({
      status: "failed",
      error: { code: expect.any(String) },
    });
  });

  it("registers a new version of its agent, whose job gives the arguments of updateListing", async () => {
    const client = new ServiceClient({ baseUrl: stack().api.url, account: devAccount(5) });
    const registered = await client.jobs.wait(
      (await client.agents.register(declarativeManifest("sdk-versioned"))).job_id,
    );
    if (registered.status !== "completed") throw new Error(JSON.stringify(registered));

    const manifest = { ...declarativeManifest("sdk-versioned"), description: "Now shorter." };
    const queued = await client.agents.registerVersion(registered.result.agent_id, manifest);
    expect(await client.jobs.wait(queued.job_id)).toMatchObject({
      status: "completed",
      result: {
        agent_id: registered.result.agent_id,
        update_listing: {
          on_chain_listing_id: registered.result.create_listing?.on_chain_listing_id,
          metadata_uri: expect.stringMatching(/^ipfs:\/\//),
        },
      },
    });
  });

  it("creates an API key with a wallet signature, uses it, and revokes it for the very next request", async () => {
    const wallet = new ServiceClient({ baseUrl: stack().api.url, account: devAccount(6) });
    const created = await wallet.apiKeys.create("sdk test");
    expect(created.key).toMatch(/^intl_test_/);
    // A renter's scopes unless asked for more: no creator powers.
    expect(created.scopes).toEqual(["run", "read"]);
    expect((await wallet.apiKeys.list()).map((key) => key.id)).toContain(created.id);
    expect(JSON.stringify(await wallet.apiKeys.list())).not.toContain(created.key);

    const keyed = new ServiceClient({ baseUrl: stack().api.url, apiKey: created.key });
    expect((await keyed.listings.search({ limit: 1 })).limit).toBe(1);

    await wallet.apiKeys.revoke(created.id);
    const error = await rejection(keyed.listings.search());
    expect(error).toBeInstanceOf(ServiceAuthError);
    expect(error).toMatchObject({ code: "invalid_api_key", status: 401 });
  });

  it("creates an API key with spend limits, named in the message the wallet signs", async () => {
    const wallet = new ServiceClient({ baseUrl: stack().api.url, account: devAccount(6) });
    const listing = `lst_${"cd".repeat(32)}`;
    const created = await wallet.apiKeys.create("sdk capped", {
      dailySpendCapWei: "5000",
      allowedListings: [listing, listing],
    });
    expect(created).toMatchObject({ daily_spend_cap_wei: "5000", allowed_listings: [listing] });
    expect((await wallet.apiKeys.list()).find(({ id }) => id === created.id)).toMatchObject({
      daily_spend_cap_wei: "5000",
      allowed_listings: [listing],
    });
  });
});

describe("finding M-5: the SDK signs only messages naming its own API", () => {
  it("signs in with a SIWE message naming its base URL's host", async () => {
    const signed: string[] = [];
    const account = devAccount(7);
    const client = new ServiceClient({
      baseUrl: stack().api.url,
      account: {
        address: account.address,
        signMessage: ({ message }: { message: string }) => {
          signed.push(message);
          return account.signMessage({ message });
        },
      },
    });
    expect((await client.credentials.list()).credentials).toEqual([]);
    expect(signed).toHaveLength(1);
    expect(signed[0]?.split("\n")[0]).toBe(
      `${new URL(stack().api.url).host} wants you to sign in with your Ethereum account:`,
    );
  });

  it("refuses, unsigned, a challenge for another domain relayed by the server it was pointed at", async () => {
    const account = devAccount(7);
    let signatures = 0;
    // A hostile server at the client's base URL hands on the real API's challenge, to sign in there.
    const relay: typeof fetch = (input, init) => {
      const url = new URL(String(input));
      return fetch(`${stack().api.url}${url.pathname}${url.search}`, init);
    };
    const client = new ServiceClient({
      baseUrl: "https://agents-marketplace.example",
      fetch: relay,
      account: {
        address: account.address,
        signMessage: ({ message }: { message: string }) => {
          signatures += 1;
          return account.signMessage({ message });
        },
      },
    });
    const refusal = await client.credentials.list().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ServiceSigningRefusedError);
    expect(String(refusal)).toContain(
      `Refusing to sign a message for ${new URL(stack().api.url).host}`,
    );
    expect(signatures).toBe(0);
  });
});

describe("failures", () => {
  it("arrive as the typed error of their status, with the code, request id and on-chain error", async () => {
    const stranger = new ServiceClient({ baseUrl: stack().api.url, account: devAccount(7) });

    const missing = await rejection(stranger.listings.get(`lst_${"0".repeat(64)}`));
    expect(missing).toBeInstanceOf(ServiceNotFoundError);
    expect(missing).toMatchObject({ code: "listing_not_found", status: 404 });
    expect(missing.requestId).toMatch(/^req_/);

    const refused = await rejection(stranger.execute({ agent_id: listing().agentId, task: "hi" }));
    expect(refused).toBeInstanceOf(ServiceAccessError);
    expect(refused).toMatchObject({
      code: "credential_not_found",
      status: 403,
      onChainError: { contract: "ServiceMarketplace", error: "CredentialNotFound" },
    });

    const malformed = await rejection(stranger.execute({ agent_id: "nope", task: "hi" }));
    expect(malformed.constructor).toBe(ServiceAPIError);
    expect(malformed).toMatchObject({ code: "invalid_listing_id", status: 400 });

    const unknownKey = new ServiceClient({
      baseUrl: stack().api.url,
      apiKey: `intl_test_${"x".repeat(40)}`,
    });
    const unauthorized = await rejection(unknownKey.listings.search());
    expect(unauthorized).toBeInstanceOf(ServiceAuthError);
  });

  it("a 429 from a real rate limit carries Retry-After as retryAfter, with retries off", async () => {
    const client = new ServiceClient({
      baseUrl: strictApi.url,
      account: devAccount(8),
      retry: { maxRetries: 0 },
    });
    let error: ServiceAPIError | undefined;
    for (let request = 0; request < 10 && !error; request++) {
      error = await client.listings.search({ limit: 1 }).then(
        () => undefined,
        (reason: ServiceAPIError) => reason,
      );
    }
    expect(error).toBeInstanceOf(ServiceRateLimitError);
    expect(error).toMatchObject({ code: "rate_limit_exceeded", status: 429 });
    expect((error as ServiceRateLimitError).retryAfter).toBeGreaterThan(0);
    expect((error as ServiceRateLimitError).retryAfter).toBeLessThanOrEqual(60);
  });
});

describe("what the client does by itself", () => {
  it("signs in again before its JWT expires, never sending an expired one", async () => {
    let signedInAt = 0;
    const recorded = recordingFetch((path) => {
      if (path === "/v1/auth/token") signedInAt ||= Date.now();
    });
    const client = new ServiceClient({
      baseUrl: fragileApi.url,
      account: devAccount(9),
      fetch: recorded.send,
    });
    await client.listings.search({ limit: 1 });
    // The passing of time is what is tested: past the first token's 5 s, the shortest lifetime
    // the API allows, counted from the moment it was issued.
    await new Promise((resolve) => setTimeout(resolve, signedInAt + 5_000 - Date.now()));
    await client.listings.search({ limit: 1 });

    const signIns = recorded.answers.filter((answer) => answer.path === "/v1/auth/token");
    expect(signIns).toEqual([
      { path: "/v1/auth/token", status: 200 },
      { path: "/v1/auth/token", status: 200 },
    ]);
    expect(recorded.answers.filter((answer) => answer.status === 401)).toEqual([]);
  });

  it("retries a 503 from a stopped chain until it comes back; with retries off, throws it", async () => {
    const renter = await addRenter(PRICE);
    proxy().fail(EVERY_METHOD);
    // Tokens, since signing in checks the signature on the chain too.
    const once = new ServiceClient({
      baseUrl: fragileApi.url,
      token: renter.bearer,
      retry: { maxRetries: 0 },
    });
    const unavailable = await rejection(once.credentials.verify(listing().agentId));
    expect(unavailable).toMatchObject({ code: "service_unavailable", status: 503 });

    // The chain comes back once the client has been answered 503 a second time.
    let refusals = 0;
    const recorded = recordingFetch((_, status) => {
      if (status === 503 && ++refusals === 2) proxy().restore();
    });
    const client = new ServiceClient({
      baseUrl: fragileApi.url,
      token: renter.bearer,
      fetch: recorded.send,
      retry: { initialDelayMs: 100 },
    });
    expect(await client.credentials.verify(listing().agentId)).toMatchObject({ valid: true });
    expect(recorded.answers.filter((answer) => answer.path.startsWith("/v1/credentials"))).toEqual(
      [503, 503, 200].map((status) => ({ path: `/v1/credentials/${listing().agentId}`, status })),
    );
  });
});
