import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Address } from "viem";
import { answeredRun } from "../execution/answeredRun.ts";
import { deltaRelay } from "../execution/deltaRelay.ts";
import { executeBody } from "../execution/executeRequest.ts";
import { admitExecution, type SpendingKey } from "../execution/startExecution.ts";
import { ApiError } from "../http/errors.ts";
import { parseInput } from "../http/validation.ts";
import type { ApiDeps } from "../process/context.ts";
import { runToolResult } from "./toolResults.ts";

export type RentedToolCall = {
  wallet: Address;
  /** The listing the tool runs, `lst_…`. */
  listingId: string;
  arguments: Record<string, unknown>;
  idempotencyKey: string | undefined;
  /** The API key the call came with, whose limits the run keeps. */
  apiKey: SpendingKey | undefined;
  /** Ends the waiting for the run's answer (never the run): the client left, the process stops. */
  signal: AbortSignal;
  /** Called with each delta of output in order and how much output has come with it. */
  onOutput?: (delta: string, received: number) => void;
};

/**
 * Runs the call's task on its listing exactly as `POST /v1/execute` runs one (admission, charging,
 * rate limits, idempotency: `admitExecution`) and answers with the run as a tool result. Refusals
 * are thrown as the API errors `POST /v1/execute` answers.
 */
export async function runRentedTool(deps: ApiDeps, call: RentedToolCall): Promise<CallToolResult> {
  const { task, input, ...others } = call.arguments;
  if (Object.keys(others).length > 0) {
    throw new ApiError("invalid_request", "arguments: only task and input are taken");
  }
  const sent = { agent_id: call.listingId, task, ...(input !== undefined && { input }) };
  const body = parseInput(executeBody, sent);
  const deltas = deltaRelay();
  const { onOutput } = call;
  if (onOutput) deltas.start((delta) => onOutput(delta, deltas.streamed().length));
  const started = await admitExecution(
    deps,
    {
      wallet: call.wallet,
      sent,
      body,
      idempotencyKey: call.idempotencyKey,
      apiKey: call.apiKey,
    },
    { onDelta: onOutput && deltas.onDelta },
  );
  try {
    const row = await answeredRun(started, call.signal);
    return runToolResult(row, started.watch.wholeOutput(row));
  } finally {
    deltas.stop();
    await started.watch.stop();
  }
}
