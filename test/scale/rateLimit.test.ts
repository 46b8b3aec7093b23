// The rate limit of the scale-out stack: three API processes over a three-node NATS cluster admit
// exactly the limit of one wallet in a minute, and refuse the next request whichever process serves it.
import { expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { createApiKey, expectError, http, type JsonResponse } from "../support/http.ts";
import { inOneWindow } from "../support/inOneWindow.ts";
import { SCALE_STACK } from "../support/natsCluster.ts";
import { useStack } from "../support/useStack.ts";

const LIMIT = 100;
const LANES = 6;

// The rate limit needs no indexer; the default 100 a minute.
const stack = useStack({ ...SCALE_STACK, ponder: false });
/** What making its key costs the wallet's budget: a challenge and a confirmation. */
const KEY_MAKING = 2;

/** `count` requests with `key`, `LANES` at a time, request `i` to process `i % 3`. */
async function sendRoundRobin(key: string, count: number): Promise<JsonResponse[]> {
  const replies: JsonResponse[] = new Array(count);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < count; i = next++) {
      const api = stack().apis[i % 3] as Api;
      replies[i] = await http(api.url).get("/v1/no-such-endpoint", { bearer: key });
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  return replies;
}

it("admits the 100 requests of a minute (its key's making included) spread over three processes, and refuses the 101st at each of them", async () => {
  const { admitted, refusals } = await inOneWindow(async (attempt) => {
    // A wallet of its own each attempt: all of a wallet's keys spend one budget.
    const owner = devAccount(6 + attempt);
    const { key } = await createApiKey(stack().api.url, owner, `scale ${attempt}`);
    const startedAt = Date.now();
    const replies = await sendRoundRobin(key, LIMIT - KEY_MAKING);
    console.info(
      `${LIMIT - KEY_MAKING} requests over 3 API processes, ${LANES} at a time: ${Date.now() - startedAt} ms`,
    );
    const refusals = await Promise.all(
      stack().apis.map((api) => http(api.url).get("/v1/no-such-endpoint", { bearer: key })),
    );
    return { admitted: replies, refusals };
  });
  for (const reply of admitted) expectError(reply, 404, "not_found");
  expect(refusals).toHaveLength(3);
  for (const reply of refusals) {
    expectError(reply, 429, "rate_limit_exceeded");
    expect(reply.headers.get("x-ratelimit-remaining")).toBe("0");
  }
});
