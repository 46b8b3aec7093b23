import { describe, expect, it } from "vitest";
import { requesterOf } from "./requester.ts";

describe("finding L-8: the requester a client address counts as", () => {
  it("is an IPv4 address itself", () => {
    expect(requesterOf("203.0.113.5")).toBe("203.0.113.5");
  });

  it("is an IPv6 address's /64, however the address is written", () => {
    for (const address of [
      "2001:db8:1:2::1",
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
      "2001:0db8:0001:0002:0:0:0:9",
      "2001:db8:1:2:0:0:1.2.3.4",
      "2001:db8:1:2::1%eth0",
    ]) {
      expect(requesterOf(address), address).toBe("2001:db8:1:2::/64");
    }
    expect(requesterOf("::1")).toBe("0:0:0:0::/64");
    expect(requesterOf("::1:2:3:4:5:6")).toBe("0:0:1:2::/64");
    expect(requesterOf("2001:db8::")).toBe("2001:db8:0:0::/64");
    expect(requesterOf("2001:db8:1:3::1")).not.toBe(requesterOf("2001:db8:1:2::1"));
  });
});
