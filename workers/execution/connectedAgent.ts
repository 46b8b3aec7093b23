import { SpanKind, trace } from "@opentelemetry/api";
import { Webhook } from "standardwebhooks";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import type { Logger } from "../../lib/log.ts";
import { inSpan } from "../../lib/tracing/spans.ts";
import { AgentProtocolError } from "./agentProtocolError.ts";
import { type GuardedPostOptions, guardedPost } from "./outbound/guardedPost.ts";
import type { GuardedResponse } from "./outbound/guardedRequest.ts";
import { OutboundFailure } from "./outbound/outboundFailure.ts";
import { readAgentStream } from "./readAgentStream.ts";
import type { RunContext, RunOutcome, Runtime } from "./runtime.ts";
import { untilDeadline } from "./untilDeadline.ts";

/** What a worker knows of a connected agent once it has opened the agent's private part. */
export type ConnectedAgent = {
  entrypointUrl: string;
  /** `whsec_…`, made at registration and shown to the creator in the registration job. */
  webhookSecret: string;
};

/** What the webhook carries: the protocol of docs/execution.md, "Connected agents". */
export function webhookPayload(run: RunContext) {
  return {
    run_id: run.runId,
    listing_id: toApiListingId(run.listingId as `0x${string}`),
    task: run.task,
    ...(run.input !== undefined && { input: run.input }),
    ...(run.inputUri !== undefined && { input_uri: run.inputUri }),
    deadline: new Date(run.deadline).toISOString(),
  };
}

/**
 * Runs a connected agent: one POST of the run to its `entrypoint_url`, signed with Standard Webhooks
 * headers (`webhook-id` is the run id, so an agent can drop a repeat), through the outbound guard.
 * The agent answers JSON `{"output": ...}`, or an event stream of `{"delta": "..."}` events (handed
 * to `onDelta`) ending with an optional `{"output": ...}`. Every failure becomes a failed outcome
 * with the deltas received so far and a reason that never names the endpoint; the call is never
 * retried, since the agent may have acted on it.
 */
export function connectedAgent(
  agent: ConnectedAgent,
  outbound: GuardedPostOptions & { log?: Logger },
): Runtime {
  const call = callAgent(agent, outbound);
  // A client span of the call: its run and the agent's HTTP status, never the URL (a creator's may
  // hold a token), the payload, the signature or the answer.
  return (run) =>
    inSpan(
      "agent webhook call",
      { kind: SpanKind.CLIENT, attributes: { "marketplace.run_id": run.runId } },
      () => call(run),
    );
}

function callAgent(
  agent: ConnectedAgent,
  outbound: GuardedPostOptions & { log?: Logger },
): Runtime {
  const webhook = new Webhook(agent.webhookSecret);
  return async (run) => {
    const deltas: string[] = [];
    const failed = (failure: string): RunOutcome => ({
      status: "failed",
      output: deltas.join(""),
      failure,
    });
    const signal = untilDeadline(run);
    try {
      const payload = JSON.stringify(webhookPayload(run));
      const now = new Date();
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "webhook-id": run.runId,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": webhook.sign(run.runId, now, payload),
      };
      const response = await guardedPost(
        agent.entrypointUrl,
        { headers, body: payload, signal },
        outbound,
      );
      trace.getActiveSpan()?.setAttribute("http.response.status_code", response.status);
      if (response.status < 200 || response.status >= 300) {
        response.close();
        return failed(`the agent answered HTTP ${response.status}`);
      }
      const { output } = await readAnswer(response, (delta) => {
        deltas.push(delta);
        run.onDelta(delta);
      });
      return { status: "completed", output };
    } catch (error) {
      if (error instanceof OutboundFailure || error instanceof AgentProtocolError) {
        return failed(error.message);
      }
      outbound.log?.error("connected agent call failed unexpectedly", {
        run_id: run.runId,
        error: error instanceof Error ? error.name : typeof error,
      });
      return failed("the agent could not be called");
    }
  };
}

async function readAnswer(
  response: GuardedResponse,
  onDelta: (delta: string) => void,
): Promise<{ output: unknown }> {
  if (response.contentType === "text/event-stream") return readAgentStream(response.body, onDelta);
  if (response.contentType !== "application/json") {
    response.close();
    throw new AgentProtocolError("the agent answered neither JSON nor an event stream");
  }
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  let answer: unknown;
  try {
    answer = JSON.parse(Buffer.concat(chunks).toString());
  } catch {
    throw new AgentProtocolError("the agent's answer is not valid JSON");
  }
  if (!answer || typeof answer !== "object" || Array.isArray(answer) || !("output" in answer)) {
    throw new AgentProtocolError('the agent\'s answer has no "output"');
  }
  return { output: answer.output };
}
