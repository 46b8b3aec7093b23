import { Hono } from "hono";
import type { AppEnv } from "../context.ts";

/** How current the projections are: the indexed block, the chain's head and the lag between them. */
export const indexerRoutes = new Hono<AppEnv>();

indexerRoutes.get("/", async (c) => c.json(await c.get("deps").indexer.read()));
