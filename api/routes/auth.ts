import { Hono } from "hono";
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
import { type AppEnv, callerRequester } from "../context.ts";
import { ApiError } from "../errors.ts";
import { parseJsonBody, parseQuery } from "../validation.ts";
import { challengeSchema, signatureSchema, walletSchema } from "../walletSchema.ts";

export const authRoutes = new Hono<AppEnv>();

/** `format=siwe` asks for an EIP-4361 message naming this API; the spec's format is the default. */
export const challengeQuery = z.object({
  wallet: walletSchema,
  format: z.enum(["spec", "siwe"]).default("spec"),
});

authRoutes.get("/challenge", async (c) => {
  const { wallet, format } = parseQuery(c, challengeQuery);
  const { db, settings, now } = c.get("deps");
  if (format === "siwe") {
    const { challenge, expiresAt } = await createSiweChallenge(c, {
      purpose: siweSignInChallenge(settings.serviceName),
      wallet,
      statement: SIGN_IN_STATEMENT,
      requester: callerRequester(c),
    });
    return c.json({ challenge, expires_at: expiresAt });
  }
  const nowSeconds = Math.floor(now() / 1000);
  const { challenge, expiresAt } = await createChallenge(db, {
    purpose: signInChallenge(settings.serviceName),
    wallet,
    requester: callerRequester(c),
    nowSeconds,
  });
  return c.json({ challenge, expires_at: expiresAt });
});

export const tokenRequest = z.object({
  wallet: walletSchema,
  challenge: challengeSchema,
  signature: signatureSchema,
});

authRoutes.post("/token", async (c) => {
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
  return c.json({ token, expires_at: expiresAt });
});
