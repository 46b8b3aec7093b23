import type { HDAccount } from "viem/accounts";
import { createApiKey } from "./http.ts";

/**
 * An API key per label, each of the wallet named for it, made at once. Tests keep a key per group
 * of requests so that no group comes near the rate limit.
 */
export async function createKeysByLabel<Label extends string>(
  apiUrl: string,
  owners: Record<Label, HDAccount>,
): Promise<Record<Label, string>> {
  const entries = await Promise.all(
    Object.entries<HDAccount>(owners).map(async ([label, owner]) => {
      const { key } = await createApiKey(apiUrl, owner, label);
      return [label, key] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<Label, string>;
}
