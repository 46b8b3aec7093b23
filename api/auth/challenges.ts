import { randomBytes } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Address } from "viem";
import {
  apiKeyChallengePrefix,
  challengeMessage,
  signInChallengePrefix,
} from "../../lib/auth/messages.ts";
import { authChallenges } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { ApiError, type ErrorCode } from "../http/errors.ts";

export const CHALLENGE_LIFETIME_SECONDS = 60;
/** How long a key-creation challenge waits for the wallet to confirm. */
export const API_KEY_CHALLENGE_LIFETIME_SECONDS = 300;
/**
 * Unused challenges of one purpose kept per wallet and requester: a requester's new one beyond this
 * replaces its own oldest, never another requester's.
 */
export const MAX_OUTSTANDING_CHALLENGES = 5;

/**
 * What a challenge is for: its text begins with `prefix`, and a failed check answers `refusal`. A
 * SIWE purpose keeps `<prefix><nonce>`, the message naming the nonce; the others keep the text signed.
 */
export type ChallengePurpose = {
  prefix: string;
  lifetimeSeconds: number;
  refusal: ErrorCode;
  siwe?: boolean;
};

export function signInChallenge(serviceName: string): ChallengePurpose {
  return {
    prefix: signInChallengePrefix(serviceName),
    lifetimeSeconds: CHALLENGE_LIFETIME_SECONDS,
    refusal: "unauthorized",
  };
}

/** Sign-in with an EIP-4361 message (`api/auth/siweChallenges.ts`). */
export function siweSignInChallenge(serviceName: string): ChallengePurpose {
  return { ...signInChallenge(serviceName), prefix: `${serviceName}:siwe:auth:`, siwe: true };
}

/** Key creation confirmed by an EIP-4361 message naming the key's label and scopes. */
export function siweApiKeyChallenge(
  serviceName: string,
  network: string,
  chainId: number,
): ChallengePurpose {
  return {
    ...apiKeyChallenge(serviceName, network, chainId),
    prefix: `${serviceName}:siwe:create-api-key:${network}:${chainId}:`,
    siwe: true,
  };
}

/** Key creation on this network and chain; the caller is signed in, so its signature is what fails. */
export function apiKeyChallenge(
  serviceName: string,
  network: string,
  chainId: number,
): ChallengePurpose {
  return {
    prefix: apiKeyChallengePrefix(serviceName, network, chainId),
    lifetimeSeconds: API_KEY_CHALLENGE_LIFETIME_SECONDS,
    refusal: "invalid_signature",
  };
}

/**
 * `<prefix><unix_seconds>:<hex_random>` (a SIWE purpose's `<prefix><hex_random>`, the nonce its
 * message names), for one wallet, once. Anyone may ask for a sign-in
 * challenge, for any wallet, so the table stays bounded: expired challenges go, and a requester
 * keeps its newest few of each purpose for a wallet (replacing rather than refusing, so it cannot
 * lock itself out). Others' challenges are never touched: nobody can evict a wallet's own.
 */
export async function createChallenge(
  db: Database,
  {
    purpose,
    wallet,
    requester,
    nowSeconds,
  }: { purpose: ChallengePurpose; wallet: Address; requester: string; nowSeconds: number },
) {
  const nonce = randomBytes(16).toString("hex");
  const challenge = purpose.siwe
    ? `${purpose.prefix}${nonce}`
    : challengeMessage(purpose.prefix, nowSeconds, nonce);
  const expiresAt = nowSeconds + purpose.lifetimeSeconds;
  await db.transaction(async (tx) => {
    await tx
      .delete(authChallenges)
      .where(sql`${authChallenges.expiresAt} <= to_timestamp(${nowSeconds})`);
    await tx.insert(authChallenges).values({
      challenge,
      wallet: wallet.toLowerCase(),
      requester,
      expiresAt: new Date(expiresAt * 1000),
    });
    await tx.execute(sql`
      delete from ${authChallenges} where ${authChallenges.challenge} in (
        select ${authChallenges.challenge} from ${authChallenges}
        where ${authChallenges.wallet} = ${wallet.toLowerCase()}
          and ${authChallenges.requester} = ${requester} and ${authChallenges.usedAt} is null
          and starts_with(${authChallenges.challenge}, ${purpose.prefix})
        order by ${authChallenges.challenge} = ${challenge} desc, ${authChallenges.expiresAt} desc
        offset ${MAX_OUTSTANDING_CHALLENGES})`);
  });
  return { challenge, nonce, expiresAt };
}

/** Checks that `challenge` was issued to `wallet` for `purpose`, is unused and unexpired. */
export async function findUsableChallenge(
  db: Database,
  {
    purpose,
    challenge,
    wallet,
    nowSeconds,
  }: { purpose: ChallengePurpose; challenge: string; wallet: Address; nowSeconds: number },
) {
  const refuse = (message: string) => new ApiError(purpose.refusal, message);
  const [issued] = await db
    .select()
    .from(authChallenges)
    .where(eq(authChallenges.challenge, challenge));
  if (!issued || issued.wallet !== wallet.toLowerCase()) {
    throw refuse("The challenge was not issued to this wallet");
  }
  if (!challenge.startsWith(purpose.prefix)) {
    throw refuse(`The challenge was issued for something else: it must begin ${purpose.prefix}`);
  }
  if (issued.usedAt) throw refuse("The challenge was already used");
  if (issued.expiresAt.getTime() <= nowSeconds * 1000) {
    throw refuse("The challenge has expired; request a new one");
  }
}

/** Marks the challenge used; only one caller can win, so a challenge is never used twice. */
export async function consumeChallenge(
  db: Pick<Database, "update">,
  { purpose, challenge }: { purpose: ChallengePurpose; challenge: string },
) {
  const consumed = await db
    .update(authChallenges)
    .set({ usedAt: new Date() })
    .where(and(eq(authChallenges.challenge, challenge), isNull(authChallenges.usedAt)))
    .returning({ challenge: authChallenges.challenge });
  if (consumed.length === 0) throw new ApiError(purpose.refusal, "The challenge was already used");
}
