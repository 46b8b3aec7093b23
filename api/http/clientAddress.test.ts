import { describe, expect, it } from "vitest";
import type { TrustProxy } from "../../lib/net/trustProxy.ts";
import { clientAddressResolver } from "./clientAddress.ts";

const addressOf = (trust: TrustProxy | undefined, peer: string, forwardedFor?: string) =>
  clientAddressResolver(trust)(peer, forwardedFor);

describe("the client's address", () => {
  it("is the socket's peer without TRUST_PROXY, whatever X-Forwarded-For says", () => {
    expect(addressOf(undefined, "203.0.113.5", "198.51.100.1")).toBe("203.0.113.5");
    expect(addressOf({ hops: 0 }, "203.0.113.5", "198.51.100.1")).toBe("203.0.113.5");
    expect(addressOf(undefined, "::ffff:203.0.113.5")).toBe("203.0.113.5");
  });

  it("is the rightmost address no trusted proxy has, counting proxies", () => {
    const oneProxy = { hops: 1 };
    expect(addressOf(oneProxy, "10.0.0.2", "198.51.100.1")).toBe("198.51.100.1");
    // What the client wrote before the proxy's entry is never reached.
    expect(addressOf(oneProxy, "10.0.0.2", "1.2.3.4, 198.51.100.1")).toBe("198.51.100.1");
    expect(addressOf({ hops: 2 }, "10.0.0.2", "1.2.3.4, 198.51.100.1, 10.0.0.1")).toBe(
      "198.51.100.1",
    );
    // Fewer entries than proxies: the leftmost there is.
    expect(addressOf({ hops: 3 }, "10.0.0.2", "198.51.100.1")).toBe("198.51.100.1");
    // No header: the peer.
    expect(addressOf(oneProxy, "10.0.0.2")).toBe("10.0.0.2");
  });

  it("is the rightmost address outside the trusted subnets", () => {
    const trust: TrustProxy = {
      subnets: [
        { network: "10.0.0.0", prefix: 8, family: "ipv4" },
        { network: "fd00::", prefix: 8, family: "ipv6" },
      ],
    };
    expect(addressOf(trust, "10.1.2.3", "1.2.3.4, 198.51.100.1, fd00::7, 10.0.0.9")).toBe(
      "198.51.100.1",
    );
    expect(addressOf(trust, "::ffff:10.1.2.3", "2001:DB8::1")).toBe("2001:db8::1");
    // A peer that is not a trusted proxy: its header is its own word, and ignored.
    expect(addressOf(trust, "203.0.113.5", "198.51.100.1")).toBe("203.0.113.5");
    // Only trusted proxies all the way: the leftmost of them.
    expect(addressOf(trust, "10.1.2.3", "10.0.0.5")).toBe("10.0.0.5");
  });

  it("reads ports some proxies add, and stops at the trusted proxy before anything that is not an address", () => {
    const oneProxy = { hops: 1 };
    expect(addressOf(oneProxy, "10.0.0.2", "198.51.100.1:4711")).toBe("198.51.100.1");
    expect(addressOf(oneProxy, "10.0.0.2", "[2001:db8::1]:4711")).toBe("2001:db8::1");
    for (const garbage of ["", "unknown", "example.com", "999.1.1.1", "1.2.3.4/8"]) {
      expect(addressOf(oneProxy, "10.0.0.2", garbage)).toBe("10.0.0.2");
    }
  });
});
