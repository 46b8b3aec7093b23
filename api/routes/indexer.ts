import { ANY_REQUEST } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";

/** How current the projections are: the indexed block, the chain's head and the lag between them. */
export const indexerRoutes = new DescribedRoutes("/v1/indexer", { public: true });

indexerRoutes.get(
  "/",
  {
    tag: "Marketplace",
    summary: "How current the projections are",
    description:
      "Answers read from the projections (listings, credentials, creators' views) carry `X-Indexed-Block` and, while not current, `X-Indexer-Behind` (seconds, or `unknown`).",
    security: "none",
    answer: { status: 200, description: "The indexer's lag", schema: answers.indexer },
    errors: ANY_REQUEST,
  },
  async (c, reply) => reply(c, await c.get("deps").indexer.read()),
);
