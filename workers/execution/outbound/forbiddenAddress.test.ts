import { describe, expect, it } from "vitest";
import { isForbiddenAddress } from "./forbiddenAddress.ts";

describe("isForbiddenAddress", () => {
  it.each([
    ["0.0.0.0", "unspecified"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["169.254.169.254", "cloud metadata"],
    ["169.254.0.1", "link-local"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["::", "IPv6 unspecified"],
    ["::1", "IPv6 loopback"],
    ["fc00::1", "unique local"],
    ["fd12:3456:789a::1", "unique local"],
    ["fe80::1", "IPv6 link-local"],
    ["fe80::1%eth0", "link-local with a zone"],
    ["ff02::1", "IPv6 multicast"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, in hex"],
    ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["0:0:0:0:0:ffff:192.168.0.1", "IPv4-mapped private, uncompressed"],
    ["::ffff:100.64.0.1", "IPv4-mapped carrier-grade NAT"],
    ["::ffff:0.0.0.0", "IPv4-mapped unspecified"],
    ["::ffff:224.0.0.1", "IPv4-mapped multicast"],
    ["::127.0.0.1", "IPv4-compatible loopback"],
    ["64:ff9b::127.0.0.1", "NAT64 loopback"],
    ["64:FF9B::7F00:1", "NAT64 loopback, upper-case hex"],
    ["0:0:0:0:0:ffff:127.0.0.1", "IPv4-mapped loopback, every group written"],
    ["64:ff9b::a9fe:a9fe", "NAT64 metadata"],
    ["2002:7f00:1::", "6to4 of loopback"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["2001:db8::1", "IPv6 documentation"],
    ["localhost", "a name, not an address"],
    ["", "nothing"],
  ])("forbids %s (%s)", (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ["93.184.215.14"],
    ["8.8.8.8"],
    ["1.1.1.1"],
    ["172.32.0.1"],
    ["100.128.0.1"],
    ["2606:4700:4700::1111"],
    ["2a00:1450:4001:80b::200e"],
    ["::ffff:8.8.8.8"],
    ["64:ff9b::808:808"],
  ])("allows public %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});
