import type { Account } from "viem";

/** A wallet JWT: ask for a SIWE challenge, sign it with `personal_sign`, trade it for a token. */
export async function signIn(apiUrl: string, account: Account): Promise<string> {
  if (!account.signMessage) throw new Error("the account cannot sign messages");
  const challengeResponse = await fetch(
    `${apiUrl}/v1/auth/challenge?wallet=${account.address}&format=siwe`,
  );
  const { challenge } = (await challengeResponse.json()) as { challenge: string };
  const signature = await account.signMessage({ message: challenge });
  const response = await fetch(`${apiUrl}/v1/auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ wallet: account.address, challenge, signature }),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}
