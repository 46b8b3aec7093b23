import type { Credential, ServiceClient } from "@service/sdk";

const PAGE = 100;

/** The caller's credential for a listing as the API's index holds it, or undefined. */
export async function findCredential(
  client: ServiceClient,
  listingId: string,
): Promise<Credential | undefined> {
  for (let offset = 0; ; offset += PAGE) {
    const { credentials, total } = await client.credentials.list({ limit: PAGE, offset });
    const found = credentials.find((credential) => credential.listing_id === listingId);
    if (found || offset + PAGE >= total) return found;
  }
}
