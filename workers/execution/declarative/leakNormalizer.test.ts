import { describe, expect, it } from "vitest";
import { decodedRuns, leakNormalized, percentDecoded } from "./leakNormalizer.ts";

describe("the prompt-leak normaliser", () => {
  it("keeps only letters and digits, case folded", () => {
    expect(leakNormalized("You are Ledger-Hawk, v2!")).toBe("youareledgerhawkv2");
    expect(leakNormalized("Y-o-u_A.r.e\n\t(LEDGER)")).toBe("youareledger");
  });

  it("URL-decodes, up to three times over, keeping malformed escapes as text", () => {
    expect(leakNormalized("You%20are%2C%20Ledger")).toBe("youareledger");
    expect(percentDecoded("%252541")).toBe("A");
    expect(percentDecoded("%25252541")).toBe("%41");
    expect(percentDecoded("100% sure, %zz")).toBe("100% sure, %zz");
    expect(leakNormalized(encodeURIComponent("Résumé, naïve"))).toBe("resumenaive");
  });

  it("reduces compatibility forms and accents to their letters", () => {
    expect(leakNormalized("Ｌｅｄｇｅｒ ﬁle Ünïcödé")).toBe("ledgerfileunicode");
  });

  it("decodes base64 and hex runs, whatever their alignment", () => {
    const secret = "Score every transaction from 0 to 100";
    const base64 = Buffer.from(secret).toString("base64");
    const hex = Buffer.from(secret).toString("hex");
    expect(decodedRuns(`x ${base64} y`)).toContain(secret);
    expect(decodedRuns(`x ${base64.replaceAll("+", "-")}`).join("|")).toContain("Score every");
    // A run seen from its middle: one alignment still decodes most of it.
    expect(decodedRuns(base64.slice(5)).join("|")).toContain("transaction from 0 to 100");
    expect(decodedRuns(`hex:${hex.slice(1)}`).join("|")).toContain("transaction from 0 to 100");
    expect(decodedRuns(encodeURIComponent(`?p=${base64}`)).join("|")).toContain(secret);
    expect(decodedRuns("short words only, nothing encoded")).toEqual([]);
  });
});
