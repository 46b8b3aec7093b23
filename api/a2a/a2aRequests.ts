// What an A2A client may send (protocol 0.3), read strictly: params that do not parse get
// JSON-RPC's invalid-params error, never a 500.
import { z } from "zod/v4";
import { MAX_TASK_BYTES } from "../limits.ts";
import { RPC_ERRORS, RpcError } from "./a2aRpc.ts";

const MAX_ID_LENGTH = 128;
const MAX_PARTS = 16;

const part = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text"), text: z.string().max(MAX_TASK_BYTES) }),
  z.object({ kind: z.literal("data"), data: z.record(z.string(), z.unknown()) }),
  z.object({ kind: z.literal("file") }),
]);

export const messageSendParams = z.object({
  message: z.object({
    kind: z.literal("message"),
    role: z.literal("user"),
    messageId: z.string().min(1).max(MAX_ID_LENGTH),
    parts: z.array(part).min(1).max(MAX_PARTS),
    contextId: z.string().max(MAX_ID_LENGTH).optional(),
    taskId: z.string().max(MAX_ID_LENGTH).optional(),
  }),
  configuration: z.object({ blocking: z.boolean().optional() }).optional(),
});
export type MessageSendParams = z.output<typeof messageSendParams>;

export const taskQueryParams = z.object({ id: z.string().max(MAX_ID_LENGTH) });

/** Params as `schema` reads them, or the JSON-RPC error for invalid params. */
export function readParams<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  throw invalidParams(parsed.error);
}

/** JSON-RPC's invalid-params error, naming the first field at fault. */
export function invalidParams(error: z.ZodError): RpcError {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return new RpcError(RPC_ERRORS.invalidParams, `Invalid params: ${where}${issue?.message ?? ""}`);
}

/**
 * The execute body a message asks for: its text parts, in order, are the task; its one data part,
 * if any, the input. A message with a follow-up's `taskId` names a run already made: runs here are
 * one exchange each.
 */
export function executeRequestOf(listingId: string, { message }: MessageSendParams) {
  if (message.taskId !== undefined) {
    throw new RpcError(
      RPC_ERRORS.unsupportedOperation,
      "A task here is one run: send a new message",
    );
  }
  if (message.parts.some((p) => p.kind === "file")) {
    throw new RpcError(RPC_ERRORS.contentTypeNotSupported, "File parts are not accepted");
  }
  const data = message.parts.flatMap((p) => (p.kind === "data" ? [p.data] : []));
  if (data.length > 1) {
    throw new RpcError(
      RPC_ERRORS.invalidParams,
      "Invalid params: at most one data part, the input",
    );
  }
  const task = message.parts.flatMap((p) => (p.kind === "text" ? [p.text] : [])).join("\n");
  return { agent_id: listingId, task, ...(data[0] && { input: data[0] }) };
}
