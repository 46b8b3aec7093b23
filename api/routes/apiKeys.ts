import { and, count, desc, eq, isNull, sql } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import type { Hex } from "viem";
import { z } from "zod/v4";
import {
  API_KEY_SCOPES,
  canonicalScopes,
  DEFAULT_API_KEY_SCOPES,
} from "../../lib/auth/apiKeyScopes.ts";
import { apiKeyConfirmationMessage } from "../../lib/auth/messages.ts";
import { apiKeyStatement } from "../../lib/auth/siweMessages.ts";
import { apiKeys } from "../../lib/db/appSchema.ts";
import { parseApiListingId, toApiListingId } from "../../lib/ids/listingId.ts";
import { isApiKeyId, newApiKeyId } from "../../lib/ids/randomIds.ts";
import { generateApiKey } from "../auth/apiKeys.ts";
import {
  apiKeyChallenge,
  consumeChallenge,
  createChallenge,
  findUsableChallenge,
  siweApiKeyChallenge,
} from "../auth/challenges.ts";
import { checkSiweMessage, createSiweChallenge } from "../auth/siweChallenges.ts";
import { verifyWalletSignature } from "../auth/verifyWalletSignature.ts";
import { ApiError } from "../http/errors.ts";
import { parseJsonBody, parseQuery } from "../http/validation.ts";
import { challengeSchema, signatureSchema } from "../http/walletSchema.ts";
import { AUTHENTICATED } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { type ApiDeps, type AppEnv, callerRequester, callerWallet } from "../process/context.ts";

/** Active keys a wallet may hold at once. */
export const MAX_ACTIVE_KEYS = 25;

export const apiKeyRoutes = new DescribedRoutes("/v1/api-keys");

// Keys are managed from the dashboard with a wallet session, never with another key.
apiKeyRoutes.routes.use(
  createMiddleware<AppEnv>(async (c, next) => {
    if (c.get("identity")?.method !== "jwt") {
      throw new ApiError("forbidden", "API keys are managed with a wallet token, not an API key");
    }
    await next();
  }),
);

/** The challenge of key creation here: it names this network and chain. */
function keyCreation(deps: ApiDeps) {
  return apiKeyChallenge(deps.settings.serviceName, deps.settings.network, deps.chain.chainId);
}

function siweKeyCreation(deps: ApiDeps) {
  return siweApiKeyChallenge(deps.settings.serviceName, deps.settings.network, deps.chain.chainId);
}

const label = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\p{Cc}]+$/u, "must not contain control characters");
/** One or more of `run`, `read`, `create`; in a query, comma-separated. */
const scopes = z
  .array(z.enum(API_KEY_SCOPES))
  .min(1)
  .transform((list) => canonicalScopes(list));

/** Most listings a key may be limited to; its statement names each. */
const MAX_ALLOWED_LISTINGS = 20;

const dailySpendCap = z
  .string()
  .regex(/^\d{1,78}$/, "must be a decimal string of wei")
  .describe("At most this much wei a UTC day on the per-task runs the key starts");
const allowedListings = z
  .array(
    z.string().refine((id) => parseApiListingId(id) !== undefined, "must be a listing id (lst_…)"),
  )
  .min(1)
  .max(MAX_ALLOWED_LISTINGS)
  .transform((ids) => [...new Set(ids)].sort())
  .describe("The only listings the key may run");

export const keyChallengeQuery = z
  .object({
    format: z
      .enum(["spec", "siwe"])
      .default("spec")
      .describe("`siwe`: an EIP-4361 message naming the key's label and scopes, to sign as is"),
    label: label.optional().describe("With `format=siwe`: the key's label"),
    scopes: z
      .string()
      .default(DEFAULT_API_KEY_SCOPES.join(","))
      .transform((list) => list.split(","))
      .pipe(scopes)
      .describe("With `format=siwe`: the key's scopes, comma-separated (`run`, `read`, `create`)"),
    daily_spend_cap_wei: dailySpendCap.optional(),
    allowed_listings: z
      .string()
      .transform((list) => list.split(","))
      .pipe(allowedListings)
      .optional()
      .describe("With `format=siwe`: the only listings the key may run, comma-separated"),
  })
  .refine((query) => query.format === "spec" || query.label !== undefined, {
    message: "is required with format=siwe",
    path: ["label"],
  });

apiKeyRoutes.get(
  "/challenge",
  {
    tag: "API keys",
    summary: "Get a key-creation challenge",
    description:
      "With `format=siwe`, an EIP-4361 message naming the key's label, scopes and spend limits, " +
      "to sign as is. " +
      "Otherwise sign `<challenge>:<label>`, which creates a key with the scopes `run` and `read`.",
    security: "wallet",
    query: keyChallengeQuery,
    answer: { status: 200, description: "The challenge", schema: answers.challenge },
    errors: [...AUTHENTICATED],
  },
  async (c, reply) => {
    const query = parseQuery(c, keyChallengeQuery);
    const deps = c.get("deps");
    const issued =
      query.format === "siwe"
        ? await createSiweChallenge(c, {
            purpose: siweKeyCreation(deps),
            wallet: callerWallet(c),
            statement: apiKeyStatement(query.label ?? "", query.scopes, statedLimits(query)),
            requester: callerRequester(c),
          })
        : await createChallenge(deps.db, {
            purpose: keyCreation(deps),
            wallet: callerWallet(c),
            requester: callerRequester(c),
            nowSeconds: Math.floor(deps.now() / 1000),
          });
    return reply(c, { challenge: issued.challenge, expires_at: issued.expiresAt });
  },
);

/**
 * `challenge` is a SIWE message naming the label and `scopes` (default `run`, `read`), or a
 * challenge of the older format, signed with the label appended, which gives the default scopes.
 */
export const createKeyRequest = z.object({
  label,
  scopes: scopes.optional(),
  daily_spend_cap_wei: dailySpendCap.optional(),
  allowed_listings: allowedListings.optional(),
  challenge: challengeSchema,
  signature: signatureSchema,
});

apiKeyRoutes.post(
  "/",
  {
    tag: "API keys",
    summary: "Create an API key",
    description:
      "The key is in this answer only; it is stored hashed. `scopes` (default `run`, `read`) and " +
      "the spend limits (`daily_spend_cap_wei`, `allowed_listings`; none by default) must be " +
      "those the signed SIWE message names.",
    security: "wallet",
    body: createKeyRequest,
    answer: { status: 201, description: "The new key", schema: answers.createdApiKey },
    errors: ["invalid_request", "invalid_signature", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const body = await parseJsonBody(c, createKeyRequest);
    const { label, challenge, signature } = body;
    const deps = c.get("deps");
    const wallet = callerWallet(c);
    const legacy = keyCreation(deps);
    const nowSeconds = Math.floor(deps.now() / 1000);
    const keyScopes = body.scopes ?? [...DEFAULT_API_KEY_SCOPES];
    let purpose = legacy;
    let stored = challenge;
    let message = apiKeyConfirmationMessage(challenge, label);
    if (!challenge.startsWith(legacy.prefix)) {
      purpose = siweKeyCreation(deps);
      const statement = apiKeyStatement(label, keyScopes, statedLimits(body));
      stored = checkSiweMessage(c, { purpose, message: challenge, wallet, statement });
      message = challenge;
    } else if (body.scopes || body.daily_spend_cap_wei || body.allowed_listings) {
      throw new ApiError(
        "invalid_request",
        "Scopes and spend limits are confirmed by a SIWE message (format=siwe)",
      );
    }
    await findUsableChallenge(deps.db, { purpose, challenge: stored, wallet, nowSeconds });
    if (!(await verifyWalletSignature(deps.chain.client, { wallet, message, signature }))) {
      throw new ApiError("invalid_signature", "The signature does not confirm this label");
    }

    const { key, keyHash, keyPreview } = generateApiKey(deps.settings.network);
    const created = await deps.db.transaction(async (tx) => {
      // One creation at a time per wallet, so concurrent requests cannot pass the cap together.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`api-keys:${wallet}`}))`);
      // Spent with the key's creation, or not at all: a replayed confirmation creates nothing.
      await consumeChallenge(tx, { purpose, challenge: stored });
      const [active] = await tx
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.wallet, wallet), isNull(apiKeys.revokedAt)));
      if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS) {
        throw new ApiError(
          "invalid_request",
          `A wallet may hold ${MAX_ACTIVE_KEYS} active API keys; revoke one to create another`,
        );
      }
      const [row] = await tx
        .insert(apiKeys)
        .values({
          id: newApiKeyId(),
          wallet,
          label,
          scopes: keyScopes,
          keyHash,
          keyPreview,
          dailySpendCapWei: body.daily_spend_cap_wei,
          allowedListings: body.allowed_listings?.map((id) => parseApiListingId(id) as string),
        })
        .returning();
      return row;
    });
    if (!created) throw new Error("the new API key was not stored");
    return reply(c, { ...describeKey(created), key });
  },
);

apiKeyRoutes.get(
  "/",
  {
    tag: "API keys",
    summary: "List the wallet's API keys",
    security: "wallet",
    answer: { status: 200, description: "Newest first", schema: answers.apiKeyList },
    errors: [...AUTHENTICATED],
  },
  async (c, reply) => {
    const keys = await c
      .get("deps")
      .db.select()
      .from(apiKeys)
      .where(eq(apiKeys.wallet, callerWallet(c)))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
    return reply(c, { api_keys: keys.map(describeKey) });
  },
);

apiKeyRoutes.delete(
  "/:id",
  {
    tag: "API keys",
    summary: "Revoke an API key",
    description: "Answered once every API process refuses the key.",
    security: "wallet",
    pathParameters: { id: "The key's id" },
    answer: { status: 200, description: "The revoked key", schema: answers.apiKey },
    errors: ["not_found", ...AUTHENTICATED],
  },
  async (c, reply) => {
    if (!isApiKeyId(c.req.param("id"))) {
      throw new ApiError("not_found", "No active API key with this id");
    }
    const id = c.req.param("id");
    const deps = c.get("deps");
    const wallet = callerWallet(c);
    // The answer waits until every API process has dropped the key: the next request fails anywhere.
    const receipt = deps.revocations.expect(id);
    const [revoked] = await deps.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, id), eq(apiKeys.wallet, wallet), isNull(apiKeys.revokedAt)))
      .returning()
      .catch((error: unknown) => {
        receipt.cancel();
        throw error;
      });
    if (!revoked) {
      receipt.cancel();
      throw new ApiError("not_found", "No active API key with this id");
    }
    await receipt.everywhere();
    return reply(c, describeKey(revoked));
  },
);

/** The limits a key-creation request asks for, as its statement names them. */
function statedLimits(asked: { daily_spend_cap_wei?: string; allowed_listings?: string[] }) {
  return { dailySpendCapWei: asked.daily_spend_cap_wei, allowedListings: asked.allowed_listings };
}

function describeKey(key: typeof apiKeys.$inferSelect) {
  return {
    id: key.id,
    label: key.label,
    preview: key.keyPreview,
    scopes: key.scopes,
    daily_spend_cap_wei: key.dailySpendCapWei,
    allowed_listings: key.allowedListings?.map((id) => toApiListingId(id as Hex)) ?? null,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
