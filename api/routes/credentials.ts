import { z } from "zod/v4";
import { parseApiListingId, toApiListingId } from "../../lib/ids/listingId.ts";
import { CREDENTIAL_STATUSES } from "../../lib/marketplace/vocabulary.ts";
import { listCredentials } from "../credentials/listCredentials.ts";
import { readChainTime } from "../credentials/readChainTime.ts";
import { readFinality } from "../credentials/readFinality.ts";
import { verifyCredential } from "../credentials/verifyCredential.ts";
import { ApiError } from "../http/errors.ts";
import { pageSchema, parseQuery } from "../http/validation.ts";
import { publishedListing } from "../listings/catalogueReads.ts";
import { isoFromSeconds } from "../listings/listingResponse.ts";
import { AUTHENTICATED, LISTING_ID, NAMED_LISTING } from "../openapi/commonParts.ts";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import * as answers from "../openapi/responseSchemas.ts";
import { callerWallet } from "../process/context.ts";

export const credentialRoutes = new DescribedRoutes("/v1/credentials");

export const listQuery = z.object({
  status: z.enum(CREDENTIAL_STATUSES).optional(),
  ...pageSchema,
});

credentialRoutes.get(
  "/",
  {
    tag: "Credentials",
    summary: "List the caller's rental credentials",
    security: "bearer",
    scope: "read",
    query: listQuery,
    answer: { status: 200, description: "A page of credentials", schema: answers.credentialList },
    errors: ["invalid_request", ...AUTHENTICATED],
  },
  async (c, reply) => {
    const query = parseQuery(c, listQuery);
    const { db, chain } = c.get("deps");
    const { rows, total } = await listCredentials(db, {
      wallet: callerWallet(c),
      status: query.status,
      limit: query.limit,
      offset: query.offset,
      nowSeconds: (await readChainTime(chain.reader)).timestamp,
    });
    return reply(c, {
      credentials: rows.map((row) => ({
        listing_id: toApiListingId(row.onChainListingId),
        listing_title: row.listingTitle,
        rental_model: row.rentalModel,
        status: row.status,
        purchased_at: isoFromSeconds(row.purchasedAt),
        expires_at: row.expiresAt === null ? null : isoFromSeconds(row.expiresAt),
      })),
      total,
    });
  },
);

credentialRoutes.get(
  "/:listing_id",
  {
    tag: "Credentials",
    summary: "Verify the caller's credential for a listing, on-chain",
    security: "bearer",
    scope: "read",
    pathParameters: { listing_id: LISTING_ID },
    answer: { status: 200, description: "What the chain says", schema: answers.credentialCheck },
    errors: [...NAMED_LISTING, ...AUTHENTICATED],
  },
  async (c, reply) => {
    const listingId = c.req.param("listing_id");
    const onChainListingId = parseApiListingId(listingId);
    if (!onChainListingId)
      throw new ApiError("invalid_listing_id", "Listing ids look like lst_<64 hex>");
    const { chain } = c.get("deps");
    if (!(await publishedListing(c.get("deps"), onChainListingId))) {
      throw new ApiError("listing_not_found", "No published listing has this id");
    }

    const subject = { onChainListingId, wallet: callerWallet(c) };
    const check = await verifyCredential(chain.reader, chain.marketplace, subject);
    if (!check.found) {
      return reply(c, {
        listing_id: listingId,
        valid: false,
        status: "not_found",
        on_chain_verified: false,
      });
    }
    if (check.status !== "active") {
      return reply(c, {
        listing_id: listingId,
        rental_model: check.rentalModel,
        status: check.status,
        valid: false,
        ...(check.status === "expired" ? { expired_at: isoFromSeconds(check.expiresAt) } : {}),
        on_chain_listing_id: onChainListingId,
        on_chain_verified: true,
      });
    }
    return reply(c, {
      listing_id: listingId,
      rental_model: check.rentalModel,
      status: check.status,
      valid: true,
      finality: await readFinality(chain.reader, chain.marketplace, subject, check.block),
      on_chain_listing_id: onChainListingId,
      on_chain_verified: true,
    });
  },
);
