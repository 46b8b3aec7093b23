import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { natsConnection } from "./bus/natsConnection.ts";
import { ENV_FIELDS } from "./env.ts";

const example = readFileSync(new URL("../.env.example", import.meta.url), "utf8");
/** `NAME=value` or `# NAME=value`: a documented variable. */
const documented = new Set(
  [...example.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1] as string),
);

describe(".env.example", () => {
  it("documents every variable any process reads", () => {
    const missing = Object.keys(ENV_FIELDS).filter((name) => !documented.has(name));
    expect(missing).toEqual([]);
  });

  it("documents nothing no process reads", () => {
    const unknown = [...documented].filter((name) => !(name in ENV_FIELDS));
    expect(unknown).toEqual([]);
  });

  it("gives each default the value the processes use", () => {
    for (const [, name, value] of example.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)) {
      const field = ENV_FIELDS[name as keyof typeof ENV_FIELDS];
      expect({ name, value: String(field.parse(undefined)) }).toEqual({ name, value });
    }
  });
});

describe("NATS_URL", () => {
  it("takes one server, or a cluster's servers comma-separated, each a nats:// URL", () => {
    const natsUrl = ENV_FIELDS.NATS_URL;
    const cluster = "nats://10.0.0.1:4222, nats://10.0.0.2:4222,nats://10.0.0.3:4222";
    expect(natsUrl.parse("nats://127.0.0.1:4222")).toBe("nats://127.0.0.1:4222");
    expect(natsConnection(natsUrl.parse(cluster))).toEqual({
      servers: ["nats://10.0.0.1:4222", "nats://10.0.0.2:4222", "nats://10.0.0.3:4222"],
    });
    // Credentials leave the server addresses: a user and password, or a token.
    expect(
      natsConnection(natsUrl.parse("nats://bus:p%40ss@10.0.0.1:4222,nats://10.0.0.2:4222")),
    ).toEqual({
      servers: ["nats://10.0.0.1:4222", "nats://10.0.0.2:4222"],
      user: "bus",
      pass: "p@ss",
    });
    expect(natsConnection("nats://s3cret@10.0.0.1:4222")).toEqual({
      servers: ["nats://10.0.0.1:4222"],
      token: "s3cret",
    });
    expect(natsUrl.safeParse("nats://127.0.0.1:4222,http://127.0.0.1:4222").success).toBe(false);
  });
});
