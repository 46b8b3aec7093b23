import type { Context } from "hono";
import { parseApiListingId } from "../../lib/ids/listingId.ts";
import {
  executeRequestOf,
  invalidParams,
  type MessageSendParams,
  messageSendParams,
  readParams,
  taskQueryParams,
} from "../a2a/a2aRequests.ts";
import {
  RPC_ERRORS,
  RpcError,
  type RpcId,
  rpcEnvelope,
  rpcErrorBody,
  rpcResultBody,
} from "../a2a/a2aRpc.ts";
import { streamTask } from "../a2a/a2aStream.ts";
import { taskOf } from "../a2a/a2aTasks.ts";
import { agentCard } from "../a2a/agentCard.ts";
import { executeBody } from "../execution/executeRequest.ts";
import {
  admitExecution,
  type ExecutionRequest,
  spendingKeyOf,
} from "../execution/startExecution.ts";
import { neverStarted, notStartedError, stillGoingUnread } from "../execution/unanswered.ts";
import { ApiError } from "../http/errors.ts";
import { requireIdentity } from "../middleware/identify.ts";
import { ANY_REQUEST, AUTHENTICATED, CHARGING_RULE, LISTING_ID } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { type AppEnv, callerWallet } from "../process/context.ts";
import { callerRun } from "../runs/callerRun.ts";

/** Each listing as an A2A agent (protocol 0.3): its card, and JSON-RPC at `/a2a/{listing_id}`. */
export const a2aRoutes = new DescribedRoutes("/a2a", { public: true });

const NO_LISTING = new ApiError("listing_not_found", "No published listing has this id");
const PARSE_ERROR = new RpcError(RPC_ERRORS.parseError, "Parse error: the body is not JSON");

/** Public, like the catalogue it shows: a client reads it to learn how to authenticate. */
a2aRoutes.get(
  "/:id/.well-known/agent-card.json",
  {
    tag: "Execution",
    summary: "A listing's A2A agent card",
    description:
      "The listing as an agent of the A2A protocol 0.3 (docs/a2a.md): its skill, price, the " +
      "bearer scheme and where to send messages. Public, like the catalogue it repeats.",
    security: "none",
    pathParameters: { id: LISTING_ID },
    answer: { status: 200, description: "The agent card", schema: answers.a2aAgentCard },
    errors: ["listing_not_found", ...ANY_REQUEST],
  },
  async (c, reply) => {
    const onChainId = parseApiListingId(c.req.param("id"));
    if (!onChainId) throw NO_LISTING;
    const baseUrl = c.get("deps").settings.publicUrl ?? new URL(c.req.url).origin;
    const card = await agentCard(c.get("deps"), onChainId, baseUrl.replace(/\/$/, ""));
    if (!card) throw NO_LISTING;
    return reply(c, card);
  },
);

a2aRoutes.post(
  "/:id",
  {
    tag: "Execution",
    summary: "A2A JSON-RPC: send a message to a listing's agent",
    description:
      "A2A 0.3 over JSON-RPC 2.0 (docs/a2a.md). `message/send` runs the message's task as " +
      "`POST /v1/execute` does (its text parts the task, its data part the input) and answers the " +
      "task: its id is the run id, its artifact the output, its metadata the run's `cost_wei`. " +
      "`message/stream` answers `text/event-stream`: the task, the output's deltas as artifact " +
      "updates, then the final status. `tasks/get` reads any run of the caller's. A refusal is " +
      "the JSON-RPC error -32000, its message beginning with the API's error code and its `data` " +
      "the API's error object. An API key needs the `run` scope. " +
      CHARGING_RULE,
    security: "bearer",
    scope: "run",
    pathParameters: { id: LISTING_ID },
    body: rpcEnvelope,
    answer: { status: 200, description: "The JSON-RPC answer", schema: answers.a2aAnswer },
    errors: ["payload_too_large", ...AUTHENTICATED],
  },
  requireIdentity,
  async (c, reply) => {
    const listingId = c.req.param("id");
    const body = await readRpcBody(c);
    let id: RpcId = null;
    try {
      if (body === PARSE_ERROR) throw body;
      const envelope = rpcEnvelope.safeParse(body);
      if (!envelope.success)
        throw new RpcError(RPC_ERRORS.invalidRequest, "Invalid JSON-RPC request");
      id = envelope.data.id;
      const { method, params } = envelope.data;
      switch (method) {
        case "message/send":
          return reply.exact(c, rpcResultBody(id, await sendMessage(c, listingId, params)));
        case "message/stream":
          return await streamMessage(c, listingId, id, params);
        case "tasks/get":
          return reply.exact(c, rpcResultBody(id, await getTask(c, params)));
        case "tasks/cancel":
          throw new RpcError(
            RPC_ERRORS.taskNotCancelable,
            "A run cannot be cancelled once admitted",
          );
        case "tasks/resubscribe":
        case "tasks/pushNotificationConfig/set":
        case "tasks/pushNotificationConfig/get":
        case "tasks/pushNotificationConfig/list":
        case "tasks/pushNotificationConfig/delete":
          throw new RpcError(RPC_ERRORS.pushNotificationNotSupported, `${method} is not supported`);
        default:
          throw new RpcError(RPC_ERRORS.methodNotFound, "Method not found");
      }
    } catch (error) {
      return reply(c, rpcErrorBody(id, error));
    }
  },
);

/** The request's JSON, or the parse error for what is not (the app's body limit bounds its size). */
async function readRpcBody(c: Context<AppEnv>): Promise<unknown> {
  try {
    return JSON.parse(await c.req.text());
  } catch {
    return PARSE_ERROR;
  }
}

/** Runs the message's task as `POST /v1/execute` would, and answers with the task once answered. */
async function sendMessage(c: Context<AppEnv>, listingId: string, params: unknown) {
  const message = readParams(messageSendParams, params);
  const { runId, answerDeadline, watch } = await admitExecution(
    c.get("deps"),
    executionOf(c, listingId, message),
    { answer: c },
  );
  try {
    // Not blocking: the task as admitted, for `tasks/get` to follow.
    if (message.configuration?.blocking === false) return await readTask(c, runId);
    const row = await watch
      .until("answered", { deadline: answerDeadline, signal: c.req.raw.signal })
      .catch(stillGoingUnread(runId, c));
    if (!row) return await readTask(c, runId);
    if (neverStarted(row)) throw notStartedError(c, row);
    return taskOf(row, watch.wholeOutput(row));
  } finally {
    await watch.stop();
  }
}

/** Runs the message's task, streaming its output as artifact updates and its end as the last status. */
async function streamMessage(c: Context<AppEnv>, listingId: string, id: RpcId, params: unknown) {
  return streamTask(c, id, executionOf(c, listingId, readParams(messageSendParams, params)));
}

/** One of the caller's runs as a task: any run of theirs, however it was started. */
async function getTask(c: Context<AppEnv>, params: unknown) {
  const { id } = readParams(taskQueryParams, params);
  return readTask(c, id);
}

async function readTask(c: Context<AppEnv>, runId: string) {
  const row = await callerRun(c.get("deps").db, callerWallet(c), runId);
  if (!row) throw new RpcError(RPC_ERRORS.taskNotFound, "Task not found");
  return taskOf(row);
}

/**
 * The run a message asks for. A message is sent once per `messageId`: a client's retry of the same
 * message is the same run, as an `Idempotency-Key` makes it for `POST /v1/execute` (keys are the
 * caller's own).
 */
function executionOf(
  c: Context<AppEnv>,
  listingId: string,
  message: MessageSendParams,
): ExecutionRequest {
  const sent = executeRequestOf(listingId, message);
  const parsed = executeBody.safeParse(sent);
  if (!parsed.success) throw invalidParams(parsed.error);
  return {
    wallet: callerWallet(c),
    sent,
    body: parsed.data,
    idempotencyKey: `a2a:${message.message.messageId}`,
    apiKey: spendingKeyOf(c.get("identity")),
  };
}
