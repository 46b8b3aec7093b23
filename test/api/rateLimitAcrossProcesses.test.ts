// Rate limits are leased to API processes in blocks (api/rateLimit/leasedBudgets.ts), yet however a
// wallet's requests spread over two or three processes, many at once, exactly the limit is admitted in
// a window: no more, since the leases never add up to more, and no fewer, since units a process
// holds unused are recalled for whichever process asks for the window's last ones.
import { describe, expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { addListeningApi } from "../support/apiListener.ts";
import { createApiKey, expectError, http, type JsonResponse } from "../support/http.ts";
import { inOneWindow } from "../support/inOneWindow.ts";
import { useStack } from "../support/useStack.ts";

const LIMIT = 100;
const LANES = 8;

// The default 100 per minute; nothing here reads what the indexer projects.
const stack = useStack({ api: 3, ponder: false });
/** A wallet of its own for each key: all of a wallet's keys spend one budget. */
let owners = 7;
const freshOwner = () => devAccount(owners++);
/** What making a key costs its wallet's budget: a challenge and a confirmation. */
const KEY_MAKING = 2;

/** `count` requests with `key`, `LANES` at a time, request `i` to `processFor(i)`. */
async function send(
  key: string,
  count: number,
  processFor: (i: number) => Api,
): Promise<JsonResponse[]> {
  const replies: JsonResponse[] = new Array(count);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < count; i = next++) {
      replies[i] = await http(processFor(i).url).get("/v1/no-such-endpoint", { bearer: key });
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  return replies;
}

/** Admitted (the route's own 404) or refused (429), each with the headers a client relies on. */
function tally(replies: JsonResponse[]) {
  let admitted = 0;
  for (const reply of replies) {
    const remaining = Number(reply.headers.get("x-ratelimit-remaining"));
    expect(reply.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));
    if (reply.status === 429) {
      expectError(reply, 429, "rate_limit_exceeded");
      expect(remaining).toBe(0);
      expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    } else {
      expectError(reply, 404, "not_found");
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining).toBeLessThan(LIMIT);
      admitted += 1;
    }
  }
  return admitted;
}

const apis = () => stack().apis as [Api, Api, Api];

describe("the rate limit across API processes", () => {
  it("admits exactly the limit when requests alternate over two processes, many at once", async () => {
    const admitted = await inOneWindow(async (attempt) => {
      const { key } = await createApiKey(apis()[0].url, freshOwner(), `two ${attempt}`);
      return tally(await send(key, LIMIT + 60, (i) => apis()[i % 2] as Api));
    });
    expect(admitted).toBe(LIMIT - KEY_MAKING);
  });

  it("admits exactly the limit when requests go to three processes at random, many at once", async () => {
    const admitted = await inOneWindow(async (attempt) => {
      const { key } = await createApiKey(apis()[1].url, freshOwner(), `three ${attempt}`);
      return tally(await send(key, LIMIT + 60, () => apis()[Math.floor(Math.random() * 3)] as Api));
    });
    expect(admitted).toBe(LIMIT - KEY_MAKING);
  });

  it("recalls the units a process leased while it was alone, so that the others get them", async () => {
    const { alone, together } = await inOneWindow(async (attempt) => {
      // Made through the process that is then alone, so that it knows the whole window.
      const { key } = await createApiKey(apis()[0].url, freshOwner(), `recalled ${attempt}`);
      // One process alone, one request at a time: it leases ever larger blocks, and the headers
      // still count every request.
      const alone: JsonResponse[] = [];
      for (let i = 0; i < 40; i++) {
        alone.push(await http(apis()[0].url).get("/v1/no-such-endpoint", { bearer: key }));
      }
      expect(alone.map((reply) => Number(reply.headers.get("x-ratelimit-remaining")))).toEqual(
        Array.from({ length: 40 }, (_, i) => LIMIT - KEY_MAKING - 1 - i),
      );
      // Then the two others, many at once: only the units it holds unused can serve the last of them.
      const together = await send(key, LIMIT, (i) => apis()[(1 + (i % 2)) as 1 | 2]);
      return { alone: tally(alone), together: tally(together) };
    });
    expect(alone).toBe(40);
    expect(together).toBe(LIMIT - KEY_MAKING - 40);
  });

  it("gives back what a process leased when it stops, for the others to spend", async () => {
    let leaving = (await addListeningApi(stack())).api;
    const counts = await inOneWindow(async (attempt) => {
      if (attempt > 1) leaving = (await addListeningApi(stack())).api;
      const { key } = await createApiKey(apis()[0].url, freshOwner(), `stopped ${attempt}`);
      // Alone on the key, many at once: it leases blocks ahead.
      const before = tally(await send(key, 30, () => leaving));
      await leaving.stop();
      const after = tally(await send(key, LIMIT, (i) => apis()[(i % 3) as 0 | 1 | 2]));
      return { before, after };
    });
    expect(counts).toEqual({ before: 30, after: LIMIT - KEY_MAKING - 30 });
  });
});
