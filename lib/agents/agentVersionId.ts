/** A version's id, `<on-chain listing id>/<content id>`: its private part is sealed to it. */
export function agentVersionId(onChainListingId: string, metadataUri: string): string {
  return `${onChainListingId.toLowerCase()}/${metadataUri.replace(/^ipfs:\/\//, "")}`;
}
