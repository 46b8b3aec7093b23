// Ponder's table builders alone, for ponder.schema.ts: the package's entry also loads its GraphQL
// server, build and client, which every API and worker process reading the projections would load
// with the schema (more than a second of CPU at each start). Ponder's entry re-exports this module,
// and it marks tables with a registered symbol, so Ponder itself takes these tables as its own.
import type * as Ponder from "ponder";
// @ts-expect-error: the package exports only its entry, whose types these are.
import * as builders from "../../node_modules/ponder/dist/esm/drizzle/onchain.js";

export const onchainTable = builders.onchainTable as typeof Ponder.onchainTable;
export const onchainEnum = builders.onchainEnum as typeof Ponder.onchainEnum;
export const primaryKey = builders.primaryKey as typeof Ponder.primaryKey;
export { index } from "drizzle-orm/pg-core";
