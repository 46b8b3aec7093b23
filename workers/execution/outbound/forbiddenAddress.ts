import { BlockList, isIPv4, isIPv6 } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Ranges no creator's endpoint may sit in: everything that is not ordinary public unicast
 * (IANA's special-purpose registries), so a URL we are given cannot reach our own network.
 */
const FORBIDDEN_V4: [string, number][] = [
  ["0.0.0.0", 8], // "this network", the unspecified address among it
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254) among it
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, the broadcast address among it
];

const FORBIDDEN_V6: [string, number][] = [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ["::ffff:0:0:0", 96], // IPv4-translated
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001::", 32], // Teredo: reaches an IPv4 address it hides
  ["2001:2::", 48], // benchmarking
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: reaches the IPv4 address it embeds
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

const forbiddenV4 = new BlockList();
for (const [network, prefix] of FORBIDDEN_V4) forbiddenV4.addSubnet(network, prefix, "ipv4");
const forbiddenV6 = new BlockList();
for (const [network, prefix] of FORBIDDEN_V6) forbiddenV6.addSubnet(network, prefix, "ipv6");

/**
 * Whether `address` (an IP address, as DNS or a URL gives it) is anything but public unicast. IPv6
 * forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) are
 * judged by the IPv4 address they reach. Anything that is not an IP address is forbidden.
 */
export function isForbiddenAddress(address: string): boolean {
  if (isIPv4(address)) return forbiddenV4.check(address, "ipv4");
  // A zone (`fe80::1%eth0`) only ever follows a link-local address.
  if (address.includes("%")) return true;
  if (!isIPv6(address)) return true;
  const embedded = embeddedIpv4(ipaddr.IPv6.parse(address));
  if (embedded !== undefined) return forbiddenV4.check(embedded, "ipv4");
  return forbiddenV6.check(address, "ipv6");
}

const NAT64 = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/** The IPv4 address an IPv4-mapped or NAT64 (64:ff9b::/96) address reaches, if it is one. */
function embeddedIpv4(address: ipaddr.IPv6): string | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  if (address.match(NAT64)) return ipaddr.fromByteArray(address.toByteArray().slice(12)).toString();
  return undefined;
}
