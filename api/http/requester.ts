import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Whose budget a client address spends: an IPv4 address is one requester; an IPv6 address counts as
 * its /64, the block one subscriber is usually given whole, so that it cannot pick a fresh address
 * (and a fresh budget) for every request. `address` is canonical, as `clientAddressResolver` gives it.
 */
export function requesterOf(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = ipaddr.IPv6.parse(address.replace(/%.*$/, "")).parts.slice(0, 4);
  return `${groups.map((group) => group.toString(16)).join(":")}::/64`;
}
