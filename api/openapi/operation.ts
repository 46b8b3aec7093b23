import type { z } from "zod/v4";
import type { ApiKeyScope } from "../../lib/auth/apiKeyScopes.ts";
import type { ErrorCode } from "../http/errors.ts";

/** `bearer`: an API key or a wallet JWT; `wallet`: a wallet JWT only; `none`: no authentication. */
export type Security = "bearer" | "wallet" | "none";

/** One endpoint as the OpenAPI document describes it. */
export type Operation = {
  method: "get" | "post" | "put" | "delete";
  /** OpenAPI's form: `/v1/listings/{id}`. */
  path: string;
  tag: keyof typeof TAGS;
  summary: string;
  description?: string;
  security: Security;
  /**
   * What an API key needs to call it (a wallet's JWT may call it all), else 403 `forbidden`. Creator
   * powers need `create`, running tasks, reviewing and managing webhook endpoints (whose creation
   * answers a secret) need `run`, reading needs `read`. None: the endpoint checks its own (MCP, per
   * tool).
   */
  scope?: ApiKeyScope;
  pathParameters?: Record<string, string>;
  query?: z.ZodType;
  body?: z.ZodType;
  idempotent?: boolean;
  answer: {
    status: number;
    description: string;
    schema?: z.ZodType;
    eventStream?: boolean;
    /** Headers of the answer besides the rate limit's, with their descriptions. */
    headers?: Record<string, string>;
  };
  errors: ErrorCode[];
};

/** The groups of operations, in the reference's order. */
export const TAGS = {
  Authentication: "Wallet sign-in: a challenge signed with the wallet, exchanged for a JWT",
  "API keys": "A wallet's API keys, managed with its JWT",
  Marketplace: "Where to pay: the chain and the contract",
  Listings: "The catalogue of agents listed on-chain",
  Creators: "A creator's own listings and their books, as the indexer keeps them",
  Credentials: "Rental credentials, checked on-chain",
  Agents: "Registering agents from their manifests",
  Execution: "Running tasks on rented agents",
  Webhooks: "Where a wallet's events are delivered: its runs, its credentials, its listings",
} as const;
