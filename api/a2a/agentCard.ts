// A listing as an A2A agent (protocol 0.3): the card a client reads before it sends a message.
import { eq } from "drizzle-orm";
import { formatEther, type Hex } from "viem";
import { agents } from "../../lib/db/appSchema.ts";
import type { Database } from "../../lib/db/projections.ts";
import { toApiListingId } from "../../lib/ids/listingId.ts";
import type { CatalogueCache } from "../listings/catalogueCache.ts";
import { publishedListing } from "../listings/catalogueReads.ts";
import type { ListingRow } from "../listings/searchListings.ts";

const A2A_PROTOCOL_VERSION = "0.3.0";
const TEXT_MODE = "text/plain";
const JSON_MODE = "application/json";

type PublicManifest = { name?: unknown; output_schema?: { type?: unknown } };

/** The card of the listing `onChainId` names, or undefined when none is published. */
export async function agentCard(
  deps: { db: Database; catalogue: CatalogueCache },
  onChainId: Hex,
  baseUrl: string,
) {
  const row = await publishedListing(deps, onChainId);
  if (!row) return undefined;
  const manifest = await shownManifest(deps, row);
  return describeAgent(row, manifest, `${baseUrl}/a2a/${toApiListingId(onChainId)}`);
}

function describeAgent(row: ListingRow, manifest: PublicManifest, url: string) {
  const outputModes = manifest.output_schema?.type === "object" ? [JSON_MODE] : [TEXT_MODE];
  const price = `${formatEther(row.price)} ETH, ${row.rentalModel.replace("_", " ")}`;
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: row.title,
    description: `${row.description}\n\nRented on the marketplace: ${price}.`,
    url,
    preferredTransport: "JSONRPC",
    // The version shown: its manifest's content id.
    version: row.shownMetadataUri,
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer",
        description: "An API key or a wallet JWT of a wallet holding a credential for the listing",
      },
    },
    security: [{ bearer: [] }],
    defaultInputModes: [TEXT_MODE, JSON_MODE],
    defaultOutputModes: outputModes,
    skills: [
      {
        id: typeof manifest.name === "string" ? manifest.name : toApiListingId(row.onChainId),
        name: row.title,
        description: row.description,
        tags: [row.category],
        examples: row.sampleOutput,
        inputModes: [TEXT_MODE, JSON_MODE],
        outputModes,
      },
    ],
  };
}

/** The public manifest of the version the catalogue shows: the agent's row. */
function shownManifest(
  { db, catalogue }: { db: Database; catalogue: CatalogueCache },
  row: ListingRow,
): Promise<PublicManifest> {
  return catalogue.answer(`shown-manifest:${row.onChainId.toLowerCase()}`, async () => {
    const [agent] = await db
      .select({ publicManifest: agents.publicManifest })
      .from(agents)
      .where(eq(agents.onChainListingId, row.onChainId));
    return (agent?.publicManifest ?? {}) as PublicManifest;
  });
}
