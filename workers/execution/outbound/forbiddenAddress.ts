import { BlockList, isIPv4, isIPv6 } from "node:net";

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
  const embedded = embeddedIpv4(ipv6Bytes(address));
  if (embedded !== undefined) return forbiddenV4.check(embedded, "ipv4");
  return forbiddenV6.check(address, "ipv6");
}

/** The IPv4 address an IPv4-mapped or NAT64 (64:ff9b::/96) address reaches, if it is one. */
function embeddedIpv4(bytes: Uint8Array): string | undefined {
  const prefix = Array.from(bytes.subarray(0, 12));
  const mapped = prefix.every((byte, index) => (index < 10 ? byte === 0 : byte === 0xff));
  const nat64 = prefix.join(".") === "0.100.255.155.0.0.0.0.0.0.0.0";
  return mapped || nat64 ? Array.from(bytes.subarray(12)).join(".") : undefined;
}

/** The 16 bytes of a valid IPv6 address, `::` and a trailing dotted IPv4 part expanded. */
function ipv6Bytes(address: string): Uint8Array {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const headGroups = groups(head);
  const tailGroups = tail === undefined ? [] : groups(tail);
  const missing = 8 - headGroups.length - tailGroups.length;
  const all = [...headGroups, ...Array<string>(missing).fill("0"), ...tailGroups];
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}
