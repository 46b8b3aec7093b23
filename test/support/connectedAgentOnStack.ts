// A connected agent as its creator runs one, on the test stack: a real HTTPS server (certificate from
// the stack's dev CA) that verifies each signed call, takes a while to answer, and counts what it was
// asked to do, registered and listed over the API the way a creator does.
import { Webhook } from "standardwebhooks";
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import type { Stack } from "../../devStack/startStack.ts";
import { registerAndListAgent } from "./connectedListing.ts";
import type { http } from "./http.ts";
import { startHttpsTestServer } from "./httpsTestServer.ts";

/** What the agent saw: calls per run (webhook id), and the most it was running at once. */
export type AgentCalls = {
  byRun: Map<string, number>;
  running: number;
  mostAtOnce: number;
  /** Calls whose signature did not verify (answered 401). */
  unsigned: number;
};

/**
 * Starts the agent's server; make it before any worker starts, since workers read the dev CA at
 * start. Each call takes `delayMs()` and answers `{output: {summary}}`.
 */
export async function startSlowAgent(stack: Stack, delayMs: () => number) {
  const secrets = new Map<string, string>();
  const calls: AgentCalls = { byRun: new Map(), running: 0, mostAtOnce: 0, unsigned: 0 };
  const server = await startHttpsTestServer(
    await ensureDevCertificates(stack.dir),
    async (request, response) => {
      try {
        new Webhook(secrets.get(request.path) ?? "").verify(
          request.body,
          request.headers as Record<string, string>,
        );
      } catch {
        calls.unsigned++;
        response.writeHead(401).end();
        return;
      }
      const runId = String(request.headers["webhook-id"]);
      calls.byRun.set(runId, (calls.byRun.get(runId) ?? 0) + 1);
      calls.running++;
      calls.mostAtOnce = Math.max(calls.mostAtOnce, calls.running);
      await new Promise((resolve) => setTimeout(resolve, delayMs()));
      calls.running--;
      const { task } = JSON.parse(request.body);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ output: { summary: `done: ${task}` } }));
    },
  );
  return { calls, secrets, url: server.url, close: server.close };
}

/**
 * Registers a connected agent at `path` of `agent` as `creator` (over `creatorApi`), lists it on-chain
 * as `model` at `price` and waits for the indexer; returns the on-chain and API listing ids.
 */
export async function listConnectedAgent(
  stack: Stack,
  {
    agent,
    creator,
    creatorApi,
    name,
    model,
    price,
  }: {
    agent: Awaited<ReturnType<typeof startSlowAgent>>;
    creator: HDAccount;
    creatorApi: ReturnType<typeof http>;
    name: string;
    model: number;
    price: bigint;
  },
): Promise<{ onChainListingId: Hex; listingId: string }> {
  const path = `/agents/${name}`;
  const { listingId, agentId, webhookSecret } = await registerAndListAgent(stack, {
    creator,
    creatorApi,
    model,
    price,
    manifest: {
      name,
      category: "coding",
      description: "Summarises a task",
      model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
      entrypoint_url: agent.url(path),
      input_schema: { type: "object", properties: { n: { type: "integer" } } },
      output_schema: {
        type: "object",
        properties: { summary: { type: "string" } },
        required: ["summary"],
      },
    },
  });
  agent.secrets.set(path, webhookSecret);
  return { onChainListingId: listingId, listingId: agentId };
}
