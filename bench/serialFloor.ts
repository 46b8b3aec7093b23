// The least a run's start could cost if it did each of its kinds of I/O once, one after the other:
// one `eth_call` of getAccessState, one Postgres round trip and one JetStream publish-and-ack,
// each measured alone from the benchmark process on the same servers.
import postgres from "postgres";
import { type Address, createPublicClient, type Hex, http } from "viem";
import { serviceMarketplaceAbi } from "../lib/contracts/serviceMarketplace.ts";
import { measureJetStreamPublish } from "./jetStreamFloor.ts";

export type SerialFloor = {
  ethCallMs: number[];
  postgresMs: number[];
  jetStreamMs: number[];
};

export async function timed(samples: number, warmUp: number, once: () => Promise<unknown>) {
  for (let i = 0; i < warmUp; i++) await once();
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await once();
    ms.push(performance.now() - started);
  }
  return ms;
}

export async function measureSerialFloor(options: {
  rpcUrl: string;
  marketplace: Address;
  listing: Hex;
  wallet: Address;
  databaseUrl: string;
  natsUrl: string;
  samples: number;
}): Promise<SerialFloor> {
  const { samples } = options;
  const warmUp = Math.ceil(samples / 10);
  const client = createPublicClient({ transport: http(options.rpcUrl) });
  const ethCallMs = await timed(samples, warmUp, () =>
    client.readContract({
      address: options.marketplace,
      abi: serviceMarketplaceAbi,
      functionName: "getAccessState",
      args: [options.listing, options.wallet],
    }),
  );
  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  let postgresMs: number[];
  try {
    postgresMs = await timed(samples, warmUp, () => sql`select 1`);
  } finally {
    await sql.end();
  }
  const { sequentialMs: jetStreamMs } = await measureJetStreamPublish(options.natsUrl, {
    publishes: samples,
    warmUp,
    inFlight: 1,
  });
  return { ethCallMs, postgresMs, jetStreamMs };
}
