import { ERROR_STATUS, type ErrorCode } from "../http/errors.ts";
import { routeGroups } from "../routes/routeGroups.ts";
import { type JsonSchema, JsonSchemas } from "./jsonSchemas.ts";
import type { Operation, Security } from "./operation.ts";
import { TAGS } from "./operation.ts";
import { OUTBOUND_CALLS, type OutboundCall } from "./outboundCalls.ts";
import { errorObject } from "./responseSchemas.ts";

const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": {
    description: "Requests allowed in the window",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the window",
    schema: { type: "integer" },
  },
  "X-RateLimit-Reset": {
    description: "When the window resets, Unix seconds",
    schema: { type: "integer" },
  },
  "X-Request-Id": { description: "Quote it to support", schema: { type: "string" } },
};

const SECURITY: Record<Security, Record<string, string[]>[]> = {
  bearer: [{ apiKey: [] }, { walletToken: [] }],
  wallet: [{ walletToken: [] }],
  none: [],
};

/** The operation's security requirements; an API key's lists the scope it needs (OpenAPI 3.1). */
function securityOf({ security, scope }: Operation) {
  if (security !== "bearer" || !scope) return SECURITY[security];
  return [{ apiKey: [scope] }, { walletToken: [] }];
}

/**
 * The OpenAPI 3.1 document of the API: the operations its route groups declare, with the schemas
 * their routes validate requests with and their answers are typed by.
 */
export function openApiDocument() {
  const schemas = new JsonSchemas();
  const errorRef = schemas.of(errorObject, "output");
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of routeGroups().flatMap((group) => group.operations)) {
    paths[operation.path] ??= {};
    (paths[operation.path] as Record<string, unknown>)[operation.method] = describe(
      operation,
      schemas,
      errorRef,
    );
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Agent rental marketplace API",
      version: "1.0.0",
      description:
        "Rent AI agents listed on-chain and run tasks on them. Errors are always the error " +
        "object; retry 500 and 503 with exponential backoff.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/", description: "The origin this document is served from" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: Object.fromEntries(
      Object.entries(OUTBOUND_CALLS).map(([name, call]) => [
        name,
        { post: describeCall(name, call, schemas) },
      ]),
    ),
    components: {
      schemas: schemas.components,
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description:
            "An API key (`intl_test_…` or `intl_live_…`) from the dashboard. A key may do what its " +
            "scopes allow, else 403 `forbidden`: `run` (executions, reviews), `read` (every other " +
            "read), `create` (registering agents, jobs, execution limits, replies to reviews).",
        },
        walletToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A wallet's JWT from `POST /v1/auth/token`",
        },
      },
    },
  };
}

function describe(operation: Operation, schemas: JsonSchemas, errorRef: JsonSchema) {
  const { answer } = operation;
  const content = answer.eventStream
    ? { "text/event-stream": { schema: { type: "string" } } }
    : { "application/json": { schema: answer.schema ? schemas.of(answer.schema, "output") : {} } };
  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    operationId: operationId(operation),
    security: securityOf(operation),
    parameters: [
      ...Object.entries(operation.pathParameters ?? {}).map(([name, description]) => ({
        name,
        in: "path",
        required: true,
        description,
        schema: { type: "string" },
      })),
      ...queryParameters(operation, schemas),
      ...(operation.idempotent
        ? [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description: "Repeats with the same key are answered from the first request",
              schema: { type: "string", minLength: 1, maxLength: 255 },
            },
          ]
        : []),
    ],
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: schemas.of(operation.body, "input") } },
          },
        }
      : {}),
    responses: {
      [answer.status]: {
        description: answer.description,
        headers: { ...RATE_LIMIT_HEADERS, ...answerHeaders(answer.headers) },
        content,
      },
      ...errorResponses(operation.errors, errorRef),
    },
  };
}

/** The Standard Webhooks headers every call the service makes carries. */
const SIGNATURE_HEADERS = {
  "webhook-id":
    "The message's id: the same at every attempt of one delivery (`msg_…`, or the run id)",
  "webhook-timestamp": "This attempt's time, Unix seconds",
  "webhook-signature": "`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the secret",
};

/** A call the service makes, as an OpenAPI 3.1 webhook: the receiver's side of it. */
function describeCall(name: string, call: OutboundCall, schemas: JsonSchemas) {
  return {
    tags: ["Webhooks"],
    summary: call.summary,
    description: call.description,
    operationId: name.replace(/[._]([a-z])/g, (_, letter: string) => letter.toUpperCase()),
    security: [],
    parameters: Object.entries(SIGNATURE_HEADERS).map(([header, description]) => ({
      name: header,
      in: "header",
      required: true,
      description,
      schema: { type: "string" },
    })),
    requestBody: {
      required: true,
      content: { "application/json": { schema: schemas.of(call.body, "output") } },
    },
    responses: Object.fromEntries(
      Object.entries(call.answers).map(([status, description]) => [status, { description }]),
    ),
  };
}

function answerHeaders(headers: Record<string, string> = {}) {
  return Object.fromEntries(
    Object.entries(headers).map(([name, description]) => [
      name,
      { description, schema: { type: "string" } },
    ]),
  );
}

function queryParameters(operation: Operation, schemas: JsonSchemas) {
  if (!operation.query) return [];
  const query = schemas.of(operation.query, "input") as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(query.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: query.required?.includes(name) ?? false,
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
    schema,
  }));
}

/** One response per status, naming the codes it may carry. */
function errorResponses(codes: ErrorCode[], errorRef: JsonSchema) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => [
      status,
      {
        description: `Error: ${statusCodes.map((code) => `\`${code}\``).join(", ")}`,
        headers: status === 429 || status === 503 ? { "Retry-After": retryAfter } : {},
        content: { "application/json": { schema: errorRef } },
      },
    ]),
  );
}

const retryAfter = { description: "Seconds to wait", schema: { type: "integer" } };

function operationId({ method, path }: Operation): string {
  const words = path
    .replace("/v1/", "")
    .split(/[/-]/)
    .filter((word) => word && !word.startsWith("{"))
    .map((word) => word[0]?.toUpperCase() + word.slice(1));
  const byId = path.endsWith("}") ? "ById" : "";
  return `${method}${words.join("")}${byId}`;
}
