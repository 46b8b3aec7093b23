// A port found free may be taken before the service binds it: the service is then started again on
// another port, whether the taker answers the service's readiness probe (another anvil) or not, and a
// NATS server restarted on its old port waits for it to be given back.
import { createServer, type Socket } from "node:net";
import { connect } from "@nats-io/transport-node";
import { afterEach, describe, expect, it } from "vitest";
import { findFreePort, PortTakenError, startOnFreePort } from "../../devStack/findFreePort.ts";
import { type Anvil, rpcRequest, startAnvil } from "../../devStack/startAnvil.ts";
import { startTestNats } from "../../devStack/startTestNats.ts";
import { makeTempDir } from "../../devStack/tempDir.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A TCP listener on `port` that never answers, as another program holding it would be. */
async function hold(port: number): Promise<{ release: () => Promise<unknown> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    release: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Starts anvil on a free port, the first port it is given having been taken by `take` meanwhile. */
async function anvilAfterRace(take: (port: number) => Promise<unknown>) {
  const tried: number[] = [];
  const anvil = await startOnFreePort(async (port) => {
    tried.push(port);
    if (tried.length === 1) await take(port);
    return startAnvil({ port });
  });
  cleanups.push(anvil.stop);
  return { anvil, tried };
}

describe("a port taken between being found and being bound", () => {
  it("by a program that does not answer: the service starts again on another port", async () => {
    const { anvil, tried } = await anvilAfterRace(async (port) => {
      const holder = await hold(port);
      cleanups.push(holder.release);
    });
    expect(tried).toHaveLength(2);
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${tried[1]}`);
    expect(await rpcRequest(anvil.rpcUrl, "eth_chainId")).toBe("0x7a69");
  });

  it("by another anvil, which answers the probe: the service starts again on another port, its own", async () => {
    let other: Anvil | undefined;
    const { anvil, tried } = await anvilAfterRace(async (port) => {
      other = await startAnvil({ port, chainId: 4242 });
      cleanups.push(other.stop);
    });
    expect(tried).toHaveLength(2);
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${tried[1]}`);
    expect(await rpcRequest(anvil.rpcUrl, "eth_chainId")).toBe("0x7a69");
    expect(await rpcRequest(other?.rpcUrl as string, "eth_chainId")).toBe("0x1092");
  });

  it("fails with PortTakenError when the service is started on a port held by another", async () => {
    const port = await findFreePort();
    const holder = await hold(port);
    cleanups.push(holder.release);
    await expect(startAnvil({ port })).rejects.toBeInstanceOf(PortTakenError);
  });

  it("a NATS server restarted on its port waits until the port is given back", async () => {
    const temp = await makeTempDir("port-race");
    cleanups.push(temp.remove);
    const nats = await startTestNats({ count: 1, dir: temp.dir });
    cleanups.push(nats.stop);
    const [server] = nats.servers;
    const port = Number(new URL(nats.natsUrl.replace("nats:", "http:")).port);
    await server?.stopServer();
    const holder = await hold(port);
    const restarted = server?.startServer();
    // The time the port stays taken is what is tested: the restart keeps retrying through it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await holder.release();
    await restarted;
    const client = await connect({ servers: nats.natsUrl });
    await client.flush();
    await client.close();
  });
});
