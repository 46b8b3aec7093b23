import { Hono } from "hono";
import { z } from "zod/v4";
import {
  consumeChallenge,
  createChallenge,
  findUsableChallenge,
  signInChallenge,
} from "../auth/challenges.ts";
import { issueToken } from "../auth/jwt.ts";
import { verifyWalletSignature } from "../auth/verifyWalletSignature.ts";
import { type AppEnv, callerRequester } from "../context.ts";
import { ApiError } from "../errors.ts";
import { parseJsonBody, parseQuery } from "../validation.ts";
import { challengeSchema, signatureSchema, walletSchema } from "../walletSchema.ts";

export const authRoutes = new Hono<AppEnv>();

export const challengeQuery = z.object({ wallet: walletSchema });

authRoutes.get("/challenge", async (c) => {
  const { wallet } = parseQuery(c, challengeQuery);
  const { db, settings, now } = c.get("deps");
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
  const purpose = signInChallenge(deps.settings.serviceName);
  await findUsableChallenge(deps.db, { purpose, challenge, wallet, nowSeconds });
  if (
    !(await verifyWalletSignature(deps.chain.client, { wallet, message: challenge, signature }))
  ) {
    throw new ApiError("invalid_signature", "The signature does not prove control of the wallet");
  }
  await consumeChallenge(deps.db, { purpose, challenge });
  const { token, expiresAt } = await issueToken(wallet, deps.settings.jwt, nowSeconds);
  return c.json({ token, expires_at: expiresAt });
});
