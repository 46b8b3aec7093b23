// @service/sdk 0.2 against the real stack: a 429 retried once its Retry-After has passed; a stream
// whose API process dies mid-run reattached to the same run, its output told once and charged once;
// the catalogue walked page by page with `for await`, each of 250 listings seen once; and `rent`
// buying each rental model on anvil from a viem WalletClient.
import { readFileSync } from "node:fs";
import { createWalletClient, http, parseEther } from "viem";
import { foundry } from "viem/chains";
import { describe, expect, it } from "vitest";
import { ONE_TIME, PER_QUERY, SUBSCRIPTION } from "../../devStack/marketplace.ts";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { type ExecuteStreamEvent, ServiceAccessError, ServiceClient } from "../../sdk/src/index.ts";
import { balanceOf, newWallet } from "../settlement/settlementFixtures.ts";
import { behaving } from "../support/behavingAgent.ts";
import { signIn } from "../support/http.ts";
import { type ListingDraft, publishListings } from "../support/listingFixtures.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { captureOutput } from "../support/processOutput.ts";
import { until } from "../support/registration.ts";
import { runIdsOf } from "../support/runRows.ts";

const PRICE = parseEther("0.01");
const PAGED_LISTINGS = 250;
/** What the two processes of `cluster` print: the access log names the process of each request. */
const clusterOutput = captureOutput();
/** One port served by two API processes, as `API_PROCESSES=2` runs it. */
let cluster: Api;
const { stack, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "sdk-reattached",
  price: PRICE,
  // The agent's deltas spell its output, as a text agent's do.
  outputSchema: { type: "string" },
  startProcesses: async () => {
    [cluster] = await Promise.all([
      stack().addApi({ API_PROCESSES: "2" }, clusterOutput.onOutput),
      stack().addWorker(),
    ]);
    await until("both API processes to listen", () => listeningPids().length >= 2);
  },
});

const listeningPids = () =>
  clusterOutput
    .entries()
    .filter((entry) => entry.message === "listening")
    .map((entry) => entry.pid as number);

/** The pid of the cluster process that took the request `requestId`, from its access line. */
function servedBy(requestId: string): Promise<number> {
  return until(`the access line of ${requestId}`, () => {
    const line = clusterOutput
      .entries()
      .find((entry) => entry.message === "request" && entry.request_id === requestId);
    return line?.pid as number | undefined;
  });
}

describe("retries", () => {
  it("retries a 429 once its Retry-After has passed, sending its User-Agent", async () => {
    const token = await signIn(stack().api.url, devAccount(7));
    const client = new ServiceClient({ baseUrl: stack().api.url, token });
    // A wallet may hold 5 listing streams at once: the sixth is refused, Retry-After 5 s.
    const held = Array.from({ length: 5 }, () => new AbortController());
    for (const controller of held) {
      await client.creators.watchMyListings({ signal: controller.signal }).next();
    }

    const answers: { status: number; at: number; userAgent: string | null }[] = [];
    const patient = new ServiceClient({
      baseUrl: stack().api.url,
      token,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const userAgent = new Headers(init?.headers).get("user-agent");
        answers.push({ status: response.status, at: Date.now(), userAgent });
        // Refused once: one held stream closes, so the retry finds room.
        if (response.status === 429) held[0]?.abort();
        return response;
      },
    });
    const sixth = new AbortController();
    const first = await patient.creators.watchMyListings({ signal: sixth.signal }).next();
    expect(first.value).toEqual([]);
    sixth.abort();
    for (const controller of held) controller.abort();

    const { version } = JSON.parse(
      readFileSync(new URL("../../sdk/package.json", import.meta.url), "utf8"),
    ) as { version: string };
    expect(answers.map(({ status, userAgent }) => ({ status, userAgent }))).toEqual(
      [429, 200].map((status) => ({ status, userAgent: `service-sdk/${version}` })),
    );
    const [refused, served] = answers as [(typeof answers)[0], (typeof answers)[0]];
    expect(served.at - refused.at).toBeGreaterThanOrEqual(5_000);
  });
});

describe("a stream cut by its API process dying mid-run", () => {
  it("reattaches to the same run: its output once, the same run id, one charge", async () => {
    const renter = await addRenter(PRICE * 2n);
    const streamAnswers: Response[] = [];
    const client = new ServiceClient({
      baseUrl: cluster.url,
      token: renter.bearer,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (new URL(String(input)).pathname === "/v1/execute/stream") streamAnswers.push(response);
        return response;
      },
    });
    const before = await runIdsOf(stack(), renter.account.address);
    const output = "one two three four";
    const stream = client.executeStream(
      {
        agent_id: listing().agentId,
        task: behaving({ deltas: ["one ", "two ", "three ", "four"], deltaGapMs: 600, output }),
      },
      { idempotencyKey: "reattached-order-1" },
    );

    const events: ExecuteStreamEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (events.length > 1) continue;
      // The first delta is here: the process serving the stream dies.
      const requestId = streamAnswers[0]?.headers.get("x-request-id") as string;
      process.kill(await servedBy(requestId), "SIGKILL");
    }

    expect(streamAnswers.map((answer) => answer.headers.get("x-run-id"))).toEqual([
      stream.runId,
      stream.runId,
    ]);
    expect(stream.idempotencyKey).toBe("reattached-order-1");
    const deltas = events.flatMap((event) => (event.event === "output" ? [event.data.delta] : []));
    expect(deltas.join("")).toBe(output);
    expect(events.at(-1)).toEqual({
      event: "done",
      data: {
        run_id: stream.runId,
        status: "completed",
        cost_wei: PRICE,
        duration_ms: expect.any(Number),
      },
    });
    const runs = (await runIdsOf(stack(), renter.account.address)).filter(
      (id) => !before.includes(id),
    );
    expect(runs).toEqual([stream.runId]);
    const books = await expectBooksBalance();
    expect(books.get(stream.runId as string)).toMatchObject({ charge: "debited" });
    expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(PRICE);
  });

  it("attaches the Idempotency-Key it sent to the error of a refused execution", async () => {
    const stranger = new ServiceClient({ baseUrl: cluster.url, account: devAccount(9) });
    const refusal = await stranger
      .execute({ agent_id: listing().agentId, task: behaving() }, { idempotencyKey: "order-2" })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refusal).toBeInstanceOf(ServiceAccessError);
    expect(refusal).toMatchObject({ code: "credential_not_found", idempotencyKey: "order-2" });
  });
});

describe("listings and rentals", () => {
  const creator = devAccount(3);
  const draft = (name: string, model: number, price: bigint): ListingDraft => ({
    creator,
    seed: `sdk-${name}`,
    model,
    price,
    manifest: { name, category: "research", description: `${name}, walked by the SDK` },
  });

  it("visits each of 250 listings exactly once with for await", async () => {
    const drafts = Array.from({ length: PAGED_LISTINGS }, (_, n) =>
      draft(`paged-${n}`, ONE_TIME, parseEther("0.001") + BigInt(n)),
    );
    const published: string[] = [];
    // Fifty a block: a block of 250 listings would pass the block's gas limit.
    for (let start = 0; start < drafts.length; start += 50) {
      const { listings } = await publishListings(stack(), drafts.slice(start, start + 50));
      published.push(...listings.map(({ id }) => id));
    }
    const client = new ServiceClient({ baseUrl: stack().api.url, account: devAccount(8) });

    const seen: string[] = [];
    for await (const summary of client.listings.list({ sort: "price_asc" })) seen.push(summary.id);
    const { total } = await client.listings.search({ limit: 1 });
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => published.includes(id))).toEqual(published);
  });

  it("rents each rental model from a viem WalletClient with the call its listing describes", async () => {
    const price = parseEther("0.003");
    const { listings } = await publishListings(stack(), [
      draft("rented-once", ONE_TIME, price),
      draft("rented-monthly", SUBSCRIPTION, price),
      draft("rented-per-task", PER_QUERY, price),
    ]);
    const [oneTime, subscription, perTask] = listings.map(({ id }) => id) as [
      string,
      string,
      string,
    ];
    const account = await newWallet(stack());
    const wallet = createWalletClient({
      account,
      chain: foundry,
      transport: http(stack().anvil.rpcUrl),
    });
    const client = new ServiceClient({ baseUrl: stack().api.url, account });

    await expect(client.rent(subscription, wallet, { days: 10 })).rejects.toThrow(
      "Subscriptions are sold for 30, 90, 365 days, not 10",
    );
    const rentals = [
      await client.rent(oneTime, wallet),
      await client.rent(subscription, wallet, { days: 90 }),
      await client.rent(perTask, wallet, { runs: 3 }),
    ];
    for (const { hash } of rentals) {
      const receipt = await stack().marketplace.publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
    }
    expect(rentals.map(({ call }) => [call.function_name, call.value])).toEqual([
      ["purchaseOneTime", price.toString()],
      ["purchaseSubscription", ((price * 90n) / 30n).toString()],
      ["purchasePerQuery", (price * 3n).toString()],
    ]);
    for (const id of [oneTime, subscription, perTask]) {
      expect(await client.credentials.verify(id)).toMatchObject({ valid: true, status: "active" });
    }
    const [, , perTaskOnChain] = listings;
    expect(
      await balanceOf(stack(), perTaskOnChain?.onChainId as `0x${string}`, account.address),
    ).toBe(price * 3n);

    const credentials = await until("the indexer to list the three credentials", async () => {
      const all = [];
      for await (const credential of client.credentials.list({ limit: 2 })) all.push(credential);
      return all.length === 3 && all;
    });
    const subscribed = credentials.find((credential) => credential.listing_id === subscription);
    const days =
      (Date.parse(subscribed?.expires_at ?? "") - Date.parse(subscribed?.purchased_at ?? "")) /
      86_400_000;
    expect(days).toBe(90);
  });
});
