import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../process/context.ts";
import type { IndexerLag } from "./indexerLag.ts";

/**
 * On answers read from the projections: `X-Indexed-Block`, the last block they include, and, unless
 * they are current, `X-Indexer-Behind` with the seconds the indexer has been behind the chain
 * (`unknown` when that cannot be told). An answer never passes for current while the indexer lags.
 */
export const indexerFreshness: MiddlewareHandler<AppEnv> = async (c, next) => {
  const lag: IndexerLag | undefined = c.get("deps").indexer.latest();
  if (lag?.indexed_block) c.header("X-Indexed-Block", lag.indexed_block);
  if (!lag?.current) c.header("X-Indexer-Behind", String(lag?.behind_seconds ?? "unknown"));
  await next();
};
