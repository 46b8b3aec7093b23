// The scan itself: each kind of secret it is meant to find, it finds, in any line of any process.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { JWT_SECRET, SEALING_KEY, type Stack } from "../../devStack/startStack.ts";
import { devPrivateKey, LOCAL_ROLES } from "../../lib/chain/devAccounts.ts";
import { secretScan } from "./secretScan.ts";

const password = randomBytes(32).toString("hex");
const stack = { postgres: { password } } as Pick<Stack, "postgres">;

describe("the secret scan", () => {
  it("finds JWTs, API keys and wallet signatures by their shape alone", () => {
    const scan = secretScan();
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIweDAxIn0.${randomBytes(32).toString("base64url")}`;
    const unsigned = "eyJhbGciOiJub25lIn0.eyJzdWIiOiIweDAxIn0.";
    const apiKey = `intl_live_${"A1b2C3".repeat(7)}z`;
    const signature = `0x${randomBytes(65).toString("hex")}`;
    for (const line of [
      `token=${jwt}\n`,
      `${unsigned}\n`,
      `key ${apiKey}\n`,
      `sig:${signature}\n`,
    ]) {
      scan.onOutput(line);
    }
    expect(scan.leaks(stack)).toEqual([
      "JWT: token=<JWT>",
      "JWT: <JWT>",
      "API key: key <API key>",
      "wallet signature: sig:<wallet signature>",
    ]);
  });

  it("finds the stack's keys and Postgres password, and what the test remembered, by value", () => {
    const scan = secretScan();
    scan.remember("system prompt", "You are a careful auditor 0123");
    scan.remember("vendor credential", "sk-short");
    scan.onOutput(`{"jwt":"${JWT_SECRET}"}\n`);
    scan.onOutput(`sealing ${SEALING_KEY}\n`);
    scan.onOutput(`LOG:  connection with ${password}\n`);
    scan.onOutput(`signer ${devPrivateKey(LOCAL_ROLES.operator)}\n`);
    scan.onOutput("prompt: You are a careful auditor 0123!\n");
    scan.onOutput("sk-short is too short to tell from text\n");
    expect(scan.leaks(stack)).toEqual([
      'JWT secret: {"jwt":"<JWT secret>"}',
      "sealing key: sealing <sealing key>",
      "Postgres password: LOG:  connection with <Postgres password>",
      "operator key: signer 0x<operator key>",
      "system prompt: prompt: <system prompt>!",
    ]);
    expect(scan.rememberedCount()).toBe(1);
  });

  it("leaves alone hashes, addresses and longer hex data", () => {
    const scan = secretScan();
    scan.onOutput(`Transaction: 0x${"ab".repeat(32)}\n`);
    scan.onOutput("from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n");
    scan.onOutput(`data 0x${"cd".repeat(100)}\n`);
    scan.onOutput("intl_test_ABCDEF… (a preview)\n");
    expect(scan.leaks(stack)).toEqual([]);
  });

  it("says which parts of the stack it has not heard from", () => {
    const scan = secretScan();
    scan.onOutput("[1] 2026/01/01 00:00:00.000000 [INF] Server is ready\n");
    expect(scan.unheard(["nats", "postgres"])).toEqual(["postgres"]);
  });
});
