import { BlockList, isIP } from "node:net";
import type { TrustProxy } from "../../lib/net/trustProxy.ts";

/** The address of whoever sent a request, from its socket's peer and its `X-Forwarded-For`. */
export type ClientAddress = (peer: string | undefined, forwardedFor: string | undefined) => string;

/**
 * Without TRUST_PROXY, the socket's peer: `X-Forwarded-For` is ignored, since anyone can send it.
 * With it, a trusted peer is a proxy of ours, and the header is read from the right, where each
 * trusted proxy appended whom it heard from: the first address that is not a trusted proxy's is the
 * client. What a client wrote further left is never reached, so it cannot choose its address.
 */
export function clientAddressResolver(trust: TrustProxy | undefined): ClientAddress {
  const isTrusted = trustCheck(trust);
  return (peer, forwardedFor) => {
    let address = canonicalAddress(peer) ?? "unknown";
    if (!isTrusted || !forwardedFor) return address;
    const forwarded = forwardedFor.split(",");
    for (let hop = 0; forwarded.length > 0 && isTrusted(address, hop); hop++) {
      const sender = canonicalAddress(forwarded.pop()?.trim());
      // Not an address where a trusted proxy writes one: that proxy stands for the request.
      if (sender === undefined) break;
      address = sender;
    }
    return address;
  };
}

/** Whether `address`, `hop` proxies away from us, is a proxy whose forwarding we believe. */
function trustCheck(trust: TrustProxy | undefined) {
  if (!trust) return undefined;
  if ("hops" in trust) {
    return trust.hops > 0 ? (_address: string, hop: number) => hop < trust.hops : undefined;
  }
  const trusted = new BlockList();
  for (const { network, prefix, family } of trust.subnets) {
    trusted.addSubnet(network, prefix, family);
  }
  return (address: string) => {
    const version = isIP(address);
    return version !== 0 && trusted.check(address, version === 4 ? "ipv4" : "ipv6");
  };
}

/** An IP address as one budget knows it (IPv4-mapped IPv6 as IPv4, lowercase), or undefined. */
function canonicalAddress(text: string | undefined): string | undefined {
  if (!text) return undefined;
  // Some proxies append the port: "203.0.113.7:443", "[2001:db8::1]:443".
  const withoutPort =
    /^\[([^\]]+)\](?::\d+)?$/.exec(text)?.[1] ?? /^([\d.]+):\d+$/.exec(text)?.[1] ?? text;
  if (isIP(withoutPort) === 0) return undefined;
  const mapped = /^::ffff:([\d.]+)$/i.exec(withoutPort)?.[1];
  return mapped && isIP(mapped) === 4 ? mapped : withoutPort.toLowerCase();
}
