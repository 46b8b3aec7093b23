// A listing as an A2A agent (protocol 0.3), driven by the official A2A client (@a2a-js/sdk) on the
// real stack (API, a worker process settling on anvil, Ponder, a connected agent listed per task):
// the card, message/send and message/stream under the rules of POST /v1/execute, each run charged
// its price once on-chain, a resent message the same run; and what a hostile client sends.
import { Role, TaskState } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import { balanceOf, newWallet, settledRuns } from "../settlement/settlementFixtures.ts";
import { behaving } from "../support/behavingAgent.ts";
import type { Renter } from "../support/connectedListing.ts";
import { expectError, http, signIn } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";

const PRICE = parseEther("0.001");
const { stack, listing, addRenter, expectBooksBalance } = usePerTaskAgentOnStack({
  name: "a2a-agent",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});
let renter: Renter;

beforeAll(async () => {
  renter = await addRenter(PRICE * 10n);
});

const endpoint = () => `${stack().api.url}/a2a/${listing().agentId}`;

/** The official client, from the listing's card, sending `bearer` on every JSON-RPC call. */
function a2aClient(bearer: string) {
  const withBearer: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${bearer}`);
    return fetch(input, { ...init, headers });
  };
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withBearer, legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
    }),
  );
  return factory.createFromUrl(`${endpoint()}/`);
}

let messages = 0;
/** A user message with `text` and, if given, `input` as its data part, as the client takes it. */
function message(text: string, input?: Record<string, unknown>) {
  const part = (content: { $case: "text"; value: string } | { $case: "data"; value: unknown }) => ({
    content,
    metadata: undefined,
    filename: "",
    mediaType: "",
  });
  const data = input ? [part({ $case: "data", value: input })] : [];
  return {
    tenant: "",
    message: {
      messageId: `message-${++messages}`,
      contextId: "",
      taskId: "",
      role: Role.ROLE_USER,
      parts: [part({ $case: "text", value: text }), ...data],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

/** A raw JSON-RPC call, for what the official client would never send. */
function rpc(body: unknown, { bearer }: { bearer?: string } = { bearer: renter.bearer }) {
  return http(endpoint(), { bearer }).post("", body);
}

describe("the agent card", () => {
  it("is public and names the listing, its skill, the bearer scheme and the endpoint", async () => {
    const reply = await http(endpoint()).get("/.well-known/agent-card.json");
    expect(reply.status).toBe(200);
    const card = reply.body;
    expect(card).toMatchObject({
      protocolVersion: "0.3.0",
      url: endpoint(),
      preferredTransport: "JSONRPC",
      capabilities: { streaming: true, pushNotifications: false },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      security: [{ bearer: [] }],
      defaultOutputModes: ["application/json"],
    });
    expect(card.description).toContain("0.001 ETH, per query");
    expect(card.skills).toEqual([expect.objectContaining({ id: "a2a-agent", tags: ["coding"] })]);
    // The official client reads it.
    const client = await a2aClient(renter.bearer);
    expect(client).toBeDefined();
  });

  it("is 404 listing_not_found for a listing that does not exist", async () => {
    const missing = toApiListingId(`0x${"ab".repeat(32)}`);
    const reply = await http(stack().api.url).get(`/a2a/${missing}/.well-known/agent-card.json`);
    expectError(reply, 404, "listing_not_found");
  });
});

describe("message/send", () => {
  it("runs the task on the rented agent, answers the completed task with its output, and charges the price once, also for the message sent again", async () => {
    const client = await a2aClient(renter.bearer);
    const before = await balanceOf(stack(), listing().listingId, renter.account.address);
    const sent = message(behaving({ output: { summary: "sent over a2a" } }));
    const task = await client.sendMessage(sent);
    if (!("status" in task)) throw new Error("a message, not a task, was answered");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({
      $case: "data",
      value: { summary: "sent over a2a" },
    });
    expect(task.metadata).toMatchObject({ run_id: task.id, cost_wei: PRICE.toString() });

    // Sent again (a client's retry): the same run, not a second charge.
    const again = await client.sendMessage(sent);
    expect("id" in again && again.id).toBe(task.id);
    await settledRuns(stack(), [task.id]);
    expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(
      before - PRICE,
    );

    // tasks/get reads it back, for its renter only.
    const read = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const other = await addRenter(PRICE);
    const getTask = { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: task.id } };
    const unseen = await rpc(getTask, { bearer: other.bearer });
    expect(unseen.body.error?.code).toBe(-32001);
  });

  it("answers a failed run as a failed task with its reason", async () => {
    const client = await a2aClient(renter.bearer);
    const task = await client.sendMessage(message(behaving({ status: 500 })));
    if (!("status" in task)) throw new Error("a message, not a task, was answered");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const reason = task.status?.message?.parts[0]?.content;
    expect(reason?.$case === "text" && reason.value).toMatch(/500/);
    // Nothing delivered, nothing charged.
    expect(task.metadata).toMatchObject({ cost_wei: "0" });
  });

  it("refuses a wallet without a credential with an error naming credential_not_found", async () => {
    const stranger = await newWallet(stack());
    const client = await a2aClient(await signIn(stack().api.url, stranger));
    await expect(client.sendMessage(message("summarize"))).rejects.toThrow(/credential_not_found/);
    // Streamed, the refusal comes before any event, as one JSON-RPC error.
    const stream = client.sendMessageStream(message("summarize"));
    await expect(stream.next()).rejects.toThrow(/credential_not_found/);
  });
});

describe("message/stream", () => {
  it("gives the agent the message's data part as the run's input", async () => {
    const client = await a2aClient(renter.bearer);
    const input = { file: "Vault.sol", lines: [1, 2, 3] };
    const text: string[] = [];
    for await (const event of client.sendMessageStream(
      message(behaving({ echoInput: true }), input),
    )) {
      if (event.payload?.$case !== "artifactUpdate") continue;
      for (const p of event.payload.value.artifact?.parts ?? []) {
        if (p.content?.$case === "text") text.push(p.content.value);
      }
    }
    expect(JSON.parse(text.join(""))).toEqual(input);
  });

  it("streams the output as appended artifact chunks, then the whole output and the final status, charged once", async () => {
    const client = await a2aClient(renter.bearer);
    const before = await balanceOf(stack(), listing().listingId, renter.account.address);
    const deltas = ['{"summary": ', '"streamed', ' over a2a"}'];
    const events = [];
    for await (const event of client.sendMessageStream(
      message(behaving({ deltas, output: { summary: "streamed over a2a" } })),
    )) {
      events.push(event.payload);
    }
    expect(events[0]?.$case).toBe("task");
    const chunks = events.flatMap((e) => (e?.$case === "artifactUpdate" ? [e.value] : []));
    const text = chunks
      .flatMap((chunk) => chunk.artifact?.parts ?? [])
      .flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []))
      .join("");
    expect(text).toBe(deltas.join(""));
    expect(chunks.at(-1)).toMatchObject({ lastChunk: true, append: false });
    expect(chunks.at(-1)?.artifact?.parts[0]?.content).toEqual({
      $case: "data",
      value: { summary: "streamed over a2a" },
    });
    const last = events.at(-1);
    if (last?.$case !== "statusUpdate") throw new Error(`ended with ${last?.$case}`);
    expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const runId = last.value.taskId;
    await settledRuns(stack(), [runId]);
    expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(
      before - PRICE,
    );
  });
});

describe("what a hostile client sends", () => {
  it("gets JSON-RPC errors, never a 500, and nothing is run or charged", async () => {
    const before = await balanceOf(stack(), listing().listingId, renter.account.address);
    const send = (params: unknown) => ({ jsonrpc: "2.0", id: 7, method: "message/send", params });
    const userMessage = (parts: unknown[], extra = {}) => ({
      message: { kind: "message", role: "user", messageId: "hostile", parts, ...extra },
    });
    const cases: [unknown, number][] = [
      [[send(userMessage([{ kind: "text", text: "a" }]))], -32600],
      [{ jsonrpc: "1.0", id: 1, method: "message/send" }, -32600],
      [{ jsonrpc: "2.0", id: "x".repeat(10_000), method: "message/send" }, -32600],
      [{ jsonrpc: "2.0", id: 1, method: "agents/everything" }, -32601],
      [send({}), -32602],
      [send(userMessage([])), -32602],
      [send(userMessage(Array.from({ length: 100 }, () => ({ kind: "text", text: "a" })))), -32602],
      [send(userMessage([{ kind: "file", file: { uri: "file:///etc/passwd" } }])), -32005],
      [
        send(
          userMessage([
            { kind: "data", data: {} },
            { kind: "data", data: {} },
          ]),
        ),
        -32602,
      ],
      [send(userMessage([{ kind: "text", text: "a" }], { taskId: "t-1" })), -32004],
      [send(userMessage([{ kind: "text", text: "" }])), -32602],
      [send(userMessage([{ kind: "text", text: "x".repeat(20_000) }])), -32602],
      [{ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "no-such-run" } }, -32001],
      [{ jsonrpc: "2.0", id: 1, method: "tasks/cancel", params: { id: "x" } }, -32002],
    ];
    for (const [body, code] of cases) {
      const reply = await rpc(body);
      expect({ body, status: reply.status, code: reply.body.error?.code }).toEqual({
        body,
        status: 200,
        code,
      });
      expect(reply.body.result).toBeUndefined();
    }
    const notJson = await fetch(endpoint(), {
      method: "POST",
      headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(await notJson.json()).toMatchObject({ error: { code: -32700 }, id: null });

    expectError(
      await rpc(send(userMessage([{ kind: "text", text: "a" }])), {}),
      401,
      "unauthorized",
    );
    const tooLarge = await rpc({ padding: "x".repeat(2 * 1024 * 1024) });
    expectError(tooLarge, 413, "payload_too_large");

    expect(await balanceOf(stack(), listing().listingId, renter.account.address)).toBe(before);
    await expectBooksBalance();
  });
});
