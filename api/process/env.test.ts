import { describe, expect, it } from "vitest";
import { apiEnvSchema, parseApiEnv } from "./env.ts";

const required = {
  DATABASE_URL: "postgresql://u:p@127.0.0.1/db",
  RPC_URL: "http://127.0.0.1:8545",
};
const KEY = "ab".repeat(32);

describe("finding: keys in production (the API's environment)", () => {
  it("generates nothing on the live network: both keys and the public address must be given", () => {
    expect(() => parseApiEnv(apiEnvSchema, { ...required, NETWORK: "live" })).toThrow(
      "JWT_SECRET, SEALING_KEY, PUBLIC_URL: required with NETWORK=live",
    );
    expect(() =>
      parseApiEnv(apiEnvSchema, { ...required, NETWORK: "live", JWT_SECRET: KEY }),
    ).toThrow("SEALING_KEY, PUBLIC_URL: required with NETWORK=live");
    const live = parseApiEnv(apiEnvSchema, {
      ...required,
      NETWORK: "live",
      JWT_SECRET: KEY,
      SEALING_KEY: KEY,
      PUBLIC_URL: "https://api.example.com",
    });
    expect(live.NETWORK).toBe("live");
  });

  it("lets the test network generate its keys", () => {
    expect(parseApiEnv(apiEnvSchema, required)).toMatchObject({
      NETWORK: "test",
      DEPLOYMENT_FILE: ".data/deployment.json",
    });
  });
});
