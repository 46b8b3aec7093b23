// Following listed versions is quiet while the indexer has not made its views yet, and says so when
// views it has read are gone.
import { eq } from "drizzle-orm";
import postgres from "postgres";
import type { Hex } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { saveAgent } from "../../lib/agents/saveAgent.ts";
import { agents, agentVersions } from "../../lib/db/appSchema.ts";
import { connectProjections } from "../../lib/db/projections.ts";
import { createLogger } from "../../lib/log.ts";
import { useStack } from "../../test/support/useStack.ts";
import { createPostgresListener } from "../process/postgresListener.ts";
import { indexedBlockChannel } from "./catalogueCache.ts";
import { followListedVersions } from "./followListedVersions.ts";

const VIEWS = "follow_views";
const LISTING: Hex = `0x${"1".repeat(64)}`;
const CREATOR: Hex = `0x${"2".repeat(40)}`;
const manifest = (description: string) => ({
  name: "followed-agent",
  category: "coding",
  description,
});

const stack = useStack({ chain: false, postgres: true });
const warnings: string[] = [];
let sql: postgres.Sql;
let stop: () => Promise<void>;

beforeAll(async () => {
  sql = postgres(stack().postgres.databaseUrl, { max: 1, onnotice: () => {} });
  const projections = connectProjections(stack().postgres.databaseUrl, VIEWS);
  const listener = createPostgresListener({
    databaseUrl: stack().postgres.databaseUrl,
    log: createLogger("test", () => {}),
  });
  followListedVersions({
    db: projections.db,
    listener,
    viewsSchema: VIEWS,
    log: createLogger("api", (line) => warnings.push(line)),
  });
  listener.start();
  stop = async () => {
    await listener.stop();
    await projections.close();
    await sql.end();
  };
});
afterAll(() => stop?.());

const notifyIndexedBlock = () => sql.notify(indexedBlockChannel(VIEWS), "1");

const shownDescription = async () =>
  (
    await stack()
      .db.select({ description: agents.description })
      .from(agents)
      .where(eq(agents.onChainListingId, LISTING))
  )[0]?.description;

it("is quiet before the views exist, and warns once views it has read are gone", async () => {
  const db = stack().db;
  await saveAgent(db, {
    agentId: "followed-agent",
    onChainListingId: LISTING,
    creator: CREATOR,
    publicManifest: manifest("version one"),
    metadataUri: "ipfs://one",
  });
  await db.insert(agentVersions).values({
    id: `${LISTING}/two`,
    onChainListingId: LISTING,
    metadataUri: "ipfs://two",
    publicManifest: manifest("version two"),
  });
  await notifyIndexedBlock();

  // The indexer makes its views, naming version two: the next block switches the agent to it.
  await sql.unsafe(`create schema ${VIEWS}`);
  await sql.unsafe(
    `create view ${VIEWS}.listing as select '${LISTING}'::text as id, 'ipfs://two'::text as metadata_uri`,
  );
  await notifyIndexedBlock();
  await expect.poll(shownDescription, { timeout: 10_000 }).toBe("version two");
  expect(warnings).toEqual([]);

  await sql.unsafe(`drop schema ${VIEWS} cascade`);
  await notifyIndexedBlock();
  await expect
    .poll(() => warnings.join(""), { timeout: 10_000 })
    .toContain("could not switch agents to their listed versions");
});
