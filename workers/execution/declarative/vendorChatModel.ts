import Anthropic from "@anthropic-ai/sdk";
import { SpanKind } from "@opentelemetry/api";
import OpenAI from "openai";
import type { ModelProvider } from "../../../lib/manifest/manifestShape.ts";
import { inSpan } from "../../../lib/tracing/spans.ts";
import { anthropicChatModel } from "./anthropicChatModel.ts";
import type { ChatModel } from "./chatModel.ts";
import { openaiChatModel } from "./openaiChatModel.ts";

/** Where the hosted vendors are reached (settings, for regional endpoints, proxies and tests). */
export type VendorEndpoints = { openaiBaseUrl: string; anthropicBaseUrl: string };

/** A self-hosted server is called as the model's name when its manifest names none. */
const SELF_HOSTED_MODEL = "default";

export const NO_VENDOR_CREDENTIALS =
  "the agent's creator has given no credentials for its model vendor";

/**
 * The chat model a declarative agent runs on, through the vendor's official client, built for one
 * run with the creator's credentials (`vendor_credentials.api_key`), or why there is none. The
 * clients neither retry (vendorRetry.ts does, within the run's deadline) nor log. A self-hosted
 * server is a URL the creator gave: it is reached only through `selfHostedFetch`, the outbound guard.
 */
export function vendorChatModel(
  model: { provider: ModelProvider; model?: string },
  secret: { vendor_credentials?: Record<string, string>; model_endpoint_url?: string },
  { endpoints, selfHostedFetch }: { endpoints: VendorEndpoints; selfHostedFetch: typeof fetch },
): ChatModel | { failure: string } {
  const common = { maxRetries: 0, logLevel: "off" as const };
  if (model.provider === "self_hosted") {
    if (!secret.model_endpoint_url) return { failure: "the agent has no model endpoint" };
    const client = new OpenAI({
      ...common,
      // Self-hosted servers take any key (or none); the creator's own is never needed here.
      apiKey: "self-hosted",
      organization: null,
      project: null,
      baseURL: secret.model_endpoint_url,
      fetch: selfHostedFetch,
    });
    return inModelCallSpans(
      openaiChatModel(client, model.model ?? SELF_HOSTED_MODEL, { selfHosted: true }),
      model.provider,
    );
  }
  const apiKey = secret.vendor_credentials?.api_key;
  if (!apiKey || !model.model) return { failure: NO_VENDOR_CREDENTIALS };
  if (model.provider === "openai") {
    const client = new OpenAI({
      ...common,
      apiKey,
      baseURL: endpoints.openaiBaseUrl,
      // Never the worker's own environment's.
      organization: null,
      project: null,
    });
    return inModelCallSpans(openaiChatModel(client, model.model), model.provider);
  }
  const client = new Anthropic({
    ...common,
    apiKey,
    authToken: null,
    baseURL: endpoints.anthropicBaseUrl,
  });
  return inModelCallSpans(anthropicChatModel(client, model.model), model.provider);
}

/** Each turn in a client span naming the vendor only: never the prompt, the answer or the key. */
function inModelCallSpans(chatModel: ChatModel, provider: ModelProvider): ChatModel {
  return (request) =>
    inSpan(
      "model vendor call",
      { kind: SpanKind.CLIENT, attributes: { "gen_ai.provider.name": provider } },
      () => chatModel(request),
    );
}
