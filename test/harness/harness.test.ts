import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { rpcRequest } from "../../devStack/startAnvil.ts";
import { startTestAnvil, startTestNats, startTestPostgres } from "./harness.ts";

describe("test harness", () => {
  const started: { stop: () => Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(started.map((service) => service.stop()));
  });

  it("starts anvil answering JSON-RPC on a loopback port", async () => {
    const anvil = await startTestAnvil();
    started.push(anvil);
    expect(anvil.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await rpcRequest(anvil.rpcUrl, "eth_chainId")).toBe("0x7a69");
  });

  it("starts a Postgres cluster that answers queries", async () => {
    const pg = await startTestPostgres();
    started.push(pg);
    const sql = postgres(pg.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`select current_database() as database, version() as version`;
      expect(row?.database).toBe("marketplace");
      expect(row?.version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await sql.end();
    }
  });

  it("starts NATS with JetStream that stores and delivers a message", async () => {
    const nats = await startTestNats();
    started.push(nats);
    const connection = await connect({ servers: nats.natsUrl });
    try {
      const manager = await jetstreamManager(connection);
      await manager.streams.add({ name: "SMOKE", subjects: ["smoke.>"] });
      const ack = await jetstream(connection).publish("smoke.ping", "hello", { msgID: "one" });
      const duplicate = await jetstream(connection).publish("smoke.ping", "hello", {
        msgID: "one",
      });
      expect(duplicate.duplicate).toBe(true);
      const message = await manager.streams.getMessage("SMOKE", { seq: ack.seq });
      expect(message?.string()).toBe("hello");
    } finally {
      await connection.close();
    }
  });
});
