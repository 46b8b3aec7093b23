import type { Context } from "hono";
import type { Address } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { type SiweOrigin, siweMessage } from "../../lib/auth/siweMessages.ts";
import { ApiError } from "../http/errors.ts";
import type { AppEnv } from "../process/context.ts";
import { type ChallengePurpose, createChallenge } from "./challenges.ts";

/**
 * Where clients reach this API, as messages must name it: `PUBLIC_URL` when set, else the request's
 * own Host (a browser cannot forge it; a live API must set `PUBLIC_URL`, see docs/decisions.md).
 */
export function siweOrigin(c: Context<AppEnv>): SiweOrigin {
  const url = new URL(c.get("deps").settings.publicUrl ?? c.req.url);
  return { domain: url.host, uri: url.origin };
}

/** A SIWE challenge for `wallet`: its nonce is kept as a challenge of `purpose`, and named. */
export async function createSiweChallenge(
  c: Context<AppEnv>,
  {
    purpose,
    wallet,
    statement,
    requester,
  }: { purpose: ChallengePurpose; wallet: Address; statement: string; requester: string },
) {
  const deps = c.get("deps");
  const origin = siweOrigin(c);
  const nowSeconds = Math.floor(deps.now() / 1000);
  const message = (nonce: string, expiresAt: number) => {
    try {
      return siweMessage({
        origin,
        wallet,
        chainId: deps.chain.chainId,
        nonce,
        statement,
        issuedAt: nowSeconds,
        expiresAt,
      });
    } catch {
      throw new ApiError(
        "invalid_request",
        `This API's address (${origin.domain}) cannot be named in a sign-in message; its operator sets PUBLIC_URL`,
      );
    }
  };
  // Built before anything is stored, so an unusable Host leaves no row behind.
  message("00000000", nowSeconds);
  const { nonce, expiresAt } = await createChallenge(deps.db, {
    purpose,
    wallet,
    requester,
    nowSeconds,
  });
  return { challenge: message(nonce, expiresAt), expiresAt };
}

/**
 * Checks a signed SIWE message before its signature is: it must name this API's domain and URI,
 * this chain, `wallet` and `statement`, and be within its validity. Answers the stored challenge its
 * nonce names, for the caller to check (`findUsableChallenge`) and consume once the signature holds.
 */
export function checkSiweMessage(
  c: Context<AppEnv>,
  {
    purpose,
    message,
    wallet,
    statement,
  }: { purpose: ChallengePurpose; message: string; wallet: Address; statement: string },
): string {
  const deps = c.get("deps");
  const refuse = (why: string) => new ApiError(purpose.refusal, why);
  const fields = parseSiweMessage(message);
  if (!fields.nonce || !/^[0-9a-f]{32}$/.test(fields.nonce)) {
    throw refuse("The message is not a sign-in message this API issued");
  }
  const origin = siweOrigin(c);
  if (fields.domain !== origin.domain || fields.uri !== origin.uri) {
    throw refuse(`The message names another site: it must name ${origin.domain}`);
  }
  if (fields.chainId !== deps.chain.chainId) {
    throw refuse(`The message names another chain: it must name chain ${deps.chain.chainId}`);
  }
  if (fields.statement !== statement) {
    throw refuse(`The message must state: ${statement}`);
  }
  const nowSeconds = Math.floor(deps.now() / 1000);
  if (!fields.expirationTime) throw refuse("The message must carry an expiration time");
  const valid = validateSiweMessage({
    message: fields,
    domain: origin.domain,
    address: wallet,
    nonce: fields.nonce,
    time: new Date(nowSeconds * 1000),
  });
  if (!valid) throw refuse("The message is expired, not yet valid, or names another wallet");
  return `${purpose.prefix}${fields.nonce}`;
}
