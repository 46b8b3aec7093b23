import { randomBytes } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Address } from "viem";
import { challengeMessage } from "../../lib/auth/messages.ts";
import { authChallenges } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { ApiError } from "../errors.ts";

export const CHALLENGE_LIFETIME_SECONDS = 60;
/** Unused challenges kept per wallet: a new one beyond this replaces the oldest. */
export const MAX_OUTSTANDING_CHALLENGES = 5;

/**
 * `<service>:auth:<unix_seconds>:<hex_random>`, valid 60 seconds, for one wallet, once. Anyone may
 * ask, for any wallet, so the table stays bounded: expired challenges go, and a wallet keeps its
 * newest few (replacing rather than refusing, so nobody can lock a wallet out of signing in).
 */
export async function createChallenge(
  db: Database,
  { serviceName, wallet, nowSeconds }: { serviceName: string; wallet: Address; nowSeconds: number },
) {
  const challenge = challengeMessage(serviceName, nowSeconds, randomBytes(16).toString("hex"));
  const expiresAt = nowSeconds + CHALLENGE_LIFETIME_SECONDS;
  await db.transaction(async (tx) => {
    await tx
      .delete(authChallenges)
      .where(sql`${authChallenges.expiresAt} <= to_timestamp(${nowSeconds})`);
    await tx.insert(authChallenges).values({
      challenge,
      wallet: wallet.toLowerCase(),
      expiresAt: new Date(expiresAt * 1000),
    });
    await tx.execute(sql`
      delete from ${authChallenges} where ${authChallenges.challenge} in (
        select ${authChallenges.challenge} from ${authChallenges}
        where ${authChallenges.wallet} = ${wallet.toLowerCase()} and ${authChallenges.usedAt} is null
        order by ${authChallenges.challenge} = ${challenge} desc, ${authChallenges.expiresAt} desc
        offset ${MAX_OUTSTANDING_CHALLENGES})`);
  });
  return { challenge, expiresAt };
}

/** Checks that `challenge` was issued to `wallet`, is unused and unexpired; throws `unauthorized`. */
export async function findUsableChallenge(
  db: Database,
  { challenge, wallet, nowSeconds }: { challenge: string; wallet: Address; nowSeconds: number },
) {
  const [issued] = await db
    .select()
    .from(authChallenges)
    .where(eq(authChallenges.challenge, challenge));
  if (!issued || issued.wallet !== wallet.toLowerCase()) {
    throw new ApiError("unauthorized", "The challenge was not issued to this wallet");
  }
  if (issued.usedAt) throw new ApiError("unauthorized", "The challenge was already used");
  if (issued.expiresAt.getTime() <= nowSeconds * 1000) {
    throw new ApiError("unauthorized", "The challenge has expired; request a new one");
  }
}

/** Marks the challenge used; only one caller can win, so a challenge never yields two tokens. */
export async function consumeChallenge(db: Database, challenge: string) {
  const consumed = await db
    .update(authChallenges)
    .set({ usedAt: new Date() })
    .where(and(eq(authChallenges.challenge, challenge), isNull(authChallenges.usedAt)))
    .returning({ challenge: authChallenges.challenge });
  if (consumed.length === 0) throw new ApiError("unauthorized", "The challenge was already used");
}
