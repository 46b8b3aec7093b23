// JSON-RPC 2.0 as A2A (protocol 0.3) speaks it: the envelope, and every failure as its error object.
import { z } from "zod/v4";
import { ApiError, errorBody } from "../http/errors.ts";

/** JSON-RPC's own codes, and A2A's (0.3, "Error handling"). */
export const RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  /** The marketplace refused the run: `data` has the API's error object (its code and status). */
  refused: -32000,
} as const;

export type RpcId = string | number | null;

export class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** Longest request id taken: ids are echoed in every answer. */
const MAX_RPC_ID_LENGTH = 128;

export const rpcEnvelope = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string().max(MAX_RPC_ID_LENGTH), z.number().int(), z.null()]),
  method: z.string().max(64),
  params: z.unknown().optional(),
});

export function rpcResultBody(id: RpcId, result: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, result };
}

/** A failure as a JSON-RPC error: the API's own refusals keep their code and status in `data`. */
export function rpcErrorBody(id: RpcId, error: unknown) {
  if (error instanceof RpcError) {
    return { jsonrpc: "2.0", id, error: { code: error.code, message: error.message } };
  }
  if (error instanceof ApiError) {
    const { error: apiError } = errorBody(error);
    const message = `${apiError.code}: ${apiError.message}`;
    return { jsonrpc: "2.0", id, error: { code: RPC_ERRORS.refused, message, data: apiError } };
  }
  throw error;
}
