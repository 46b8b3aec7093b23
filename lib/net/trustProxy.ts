import { isIP } from "node:net";
import { z } from "zod/v4";

export type Subnet = { network: string; prefix: number; family: "ipv4" | "ipv6" };

/**
 * Which reverse proxies in front of the API may say, in `X-Forwarded-For`, whom they forwarded:
 * the nearest `hops` of them, or those whose address is in one of `subnets`.
 */
export type TrustProxy = { hops: number } | { subnets: Subnet[] };

const MEANING = "must be a number of proxies, or IP addresses and CIDRs separated by commas";

/** TRUST_PROXY: `2` (two proxies, whatever their address) or `10.0.0.0/8, 127.0.0.1, ::1`. */
export const trustProxySchema = z.string().transform((text, context): TrustProxy => {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { hops: Number(trimmed) };
  const subnets = trimmed.split(",").map((entry) => subnetOf(entry.trim()));
  if (subnets.length === 0 || subnets.some((subnet) => subnet === undefined)) {
    context.issues.push({ code: "custom", message: MEANING, input: text });
    return z.NEVER;
  }
  return { subnets: subnets as Subnet[] };
});

function subnetOf(entry: string): Subnet | undefined {
  const [network = "", prefixText, ...rest] = entry.split("/");
  const version = isIP(network);
  if (version === 0 || rest.length > 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  return { network, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}
