import { isIP } from "node:net";

/**
 * Whose budget a client address spends: an IPv4 address is one requester; an IPv6 address counts as
 * its /64, the block one subscriber is usually given whole, so that it cannot pick a fresh address
 * (and a fresh budget) for every request. `address` is canonical, as `clientAddressResolver` gives it.
 */
export function requesterOf(address: string): string {
  if (isIP(address) !== 6) return address;
  return `${groupsOf(address.replace(/%.*$/, "")).slice(0, 4).join(":")}::/64`;
}

/** A valid IPv6 address's eight groups, without leading zeros ("::" expanded). */
function groupsOf(address: string): string[] {
  // A trailing dotted IPv4 holds the last two groups; only their count matters here.
  const split = (part: string) =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => (group.includes(".") ? ["0", "0"] : [group]));
  const [head = "", tail] = address.split("::");
  const headGroups = split(head);
  const tailGroups = tail === undefined ? [] : split(tail);
  const zeros = Array(8 - headGroups.length - tailGroups.length).fill("0");
  return [...headGroups, ...zeros, ...tailGroups].map((group) =>
    Number.parseInt(group, 16).toString(16),
  );
}
