import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { parseEnvironment } from "../env.ts";
import { trustProxySchema } from "./trustProxy.ts";

describe("TRUST_PROXY", () => {
  it("is a number of proxies, or addresses and CIDRs separated by commas", () => {
    expect(trustProxySchema.parse("1")).toEqual({ hops: 1 });
    expect(trustProxySchema.parse(" 0 ")).toEqual({ hops: 0 });
    expect(trustProxySchema.parse("10.0.0.0/8, 127.0.0.1,::1, fd00::/8")).toEqual({
      subnets: [
        { network: "10.0.0.0", prefix: 8, family: "ipv4" },
        { network: "127.0.0.1", prefix: 32, family: "ipv4" },
        { network: "::1", prefix: 128, family: "ipv6" },
        { network: "fd00::", prefix: 8, family: "ipv6" },
      ],
    });
  });

  it("stops the process naming the variable when it is anything else", () => {
    const schema = z.object({ TRUST_PROXY: trustProxySchema.optional() });
    for (const bad of [
      "",
      "yes",
      "-1",
      "1.5",
      "10.0.0.0/33",
      "::1/129",
      "10.0.0.0/8,",
      "a.b.c.d",
    ]) {
      expect(() => parseEnvironment(schema, { TRUST_PROXY: bad }), bad).toThrow(
        /TRUST_PROXY: must be/,
      );
    }
    expect(parseEnvironment(schema, {})).toEqual({});
  });
});
