// The caps on open listings streams, per wallet and per process, and what a refusal tells the caller.
import { describe, expect, it } from "vitest";
import { createOpenStreams } from "./openStreams.ts";

const refusal = (claim: () => unknown) => {
  try {
    claim();
  } catch (error) {
    return error;
  }
  throw new Error("the stream was not refused");
};

describe("finding L-5: open listings streams", () => {
  it("are capped per process as well as per wallet: one more is refused 503 with Retry-After", () => {
    const streams = createOpenStreams({ perWallet: 2, perProcess: 3, retryAfterSeconds: 7 });
    const releases = [streams.claim("0xA"), streams.claim("0xa"), streams.claim("0xB")];

    expect(refusal(() => streams.claim("0xA"))).toMatchObject({
      code: "rate_limit_exceeded",
      status: 429,
      retryAfterSeconds: 7,
    });
    // A wallet with no stream open is refused once the process holds its cap.
    expect(refusal(() => streams.claim("0xC"))).toMatchObject({
      code: "service_unavailable",
      status: 503,
      retryAfterSeconds: 7,
    });

    // A stream ended makes room once, however often its end is reported.
    releases[2]?.();
    releases[2]?.();
    const release = streams.claim("0xC");
    expect(refusal(() => streams.claim("0xD"))).toMatchObject({ status: 503 });
    release();
    releases[0]?.();
    expect(() => streams.claim("0xA")).not.toThrow();
  });
});
