import { z } from "zod/v4";
import { SIGN_IN_STATEMENT } from "../../lib/auth/siweMessages.ts";
import {
  consumeChallenge,
  createChallenge,
  findUsableChallenge,
  signInChallenge,
  siweSignInChallenge,
} from "../auth/challenges.ts";
import { issueToken } from "../auth/jwt.ts";
import { checkSiweMessage, createSiweChallenge } from "../auth/siweChallenges.ts";
import { verifyWalletSignature } from "../auth/verifyWalletSignature.ts";
import { ApiError } from "../http/errors.ts";
import { parseJsonBody, parseQuery } from "../http/validation.ts";
import { challengeSchema, signatureSchema, walletSchema } from "../http/walletSchema.ts";
import { ANY_REQUEST } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerRequester } from "../process/context.ts";

export const authRoutes = new DescribedRoutes("/v1/auth", { public: true });

/** `format=siwe` asks for an EIP-4361 message naming this API; the spec's format is the default. */
export const challengeQuery = z.object({
  wallet: walletSchema,
  format: z.enum(["spec", "siwe"]).default("spec"),
});

authRoutes.get(
  "/challenge",
  {
    tag: "Authentication",
    summary: "Get a sign-in challenge",
    description:
      "A challenge valid 60 seconds, to sign with the wallet (EIP-191 personal_sign). With " +
      "`format=siwe`, an EIP-4361 (Sign-In with Ethereum) message naming this API's domain and " +
      "URI, the chain, a nonce and its expiry; clients should sign only a message naming the API " +
      "they mean to sign in to.",
    security: "none",
    query: challengeQuery,
    answer: { status: 200, description: "The challenge", schema: answers.challenge },
    errors: ["invalid_request", ...ANY_REQUEST],
  },
  async (c, reply) => {
    const { wallet, format } = parseQuery(c, challengeQuery);
    const { db, settings, now } = c.get("deps");
    if (format === "siwe") {
      const { challenge, expiresAt } = await createSiweChallenge(c, {
        purpose: siweSignInChallenge(settings.serviceName),
        wallet,
        statement: SIGN_IN_STATEMENT,
        requester: callerRequester(c),
      });
      return reply(c, { challenge, expires_at: expiresAt });
    }
    const nowSeconds = Math.floor(now() / 1000);
    const { challenge, expiresAt } = await createChallenge(db, {
      purpose: signInChallenge(settings.serviceName),
      wallet,
      requester: callerRequester(c),
      nowSeconds,
    });
    return reply(c, { challenge, expires_at: expiresAt });
  },
);

export const tokenRequest = z.object({
  wallet: walletSchema,
  challenge: challengeSchema,
  signature: signatureSchema,
});

authRoutes.post(
  "/token",
  {
    tag: "Authentication",
    summary: "Exchange a signed challenge for a JWT",
    description:
      "`challenge` is the challenge or the SIWE message as issued. The JWT is valid one hour; " +
      "clients must not use it past `expires_at`.",
    security: "none",
    body: tokenRequest,
    answer: { status: 200, description: "The wallet's token", schema: answers.token },
    errors: ["invalid_request", "invalid_signature", ...ANY_REQUEST],
  },
  async (c, reply) => {
    const { wallet, challenge, signature } = await parseJsonBody(c, tokenRequest);
    const deps = c.get("deps");
    const nowSeconds = Math.floor(deps.now() / 1000);
    const legacy = signInChallenge(deps.settings.serviceName);
    // A challenge of the spec's format is itself what is stored; anything else is read as SIWE.
    const purpose = challenge.startsWith(legacy.prefix)
      ? legacy
      : siweSignInChallenge(deps.settings.serviceName);
    const stored = purpose.siwe
      ? await checkSiweMessage(c, {
          purpose,
          message: challenge,
          wallet,
          statement: SIGN_IN_STATEMENT,
        })
      : challenge;
    await findUsableChallenge(deps.db, { purpose, challenge: stored, wallet, nowSeconds });
    if (
      !(await verifyWalletSignature(deps.chain.client, { wallet, message: challenge, signature }))
    ) {
      throw new ApiError("invalid_signature", "The signature does not prove control of the wallet");
    }
    await consumeChallenge(deps.db, { purpose, challenge: stored });
    const { token, expiresAt } = await issueToken(wallet, deps.settings.jwt, nowSeconds);
    return reply(c, { token, expires_at: expiresAt });
  },
);
