import { type Address, isAddressEqual, type PublicClient } from "viem";
import { serviceMarketplaceAbi } from "../contracts/serviceMarketplace.ts";

/**
 * Stops a settling process whose key the marketplace would refuse: only its operator and its
 * authority may debit and log runs, and every transaction of any other key would revert.
 */
export async function requireRunKeeper(
  client: PublicClient,
  marketplace: Address,
  signer: Address,
): Promise<void> {
  const read = (functionName: "operator" | "authority") =>
    client.readContract({ address: marketplace, abi: serviceMarketplaceAbi, functionName });
  const [operator, authority] = await Promise.all([read("operator"), read("authority")]);
  if (isAddressEqual(signer, operator) || isAddressEqual(signer, authority)) return;
  throw new Error(
    `OPERATOR_PRIVATE_KEY signs as ${signer}, which is neither the operator (${operator}) nor the authority (${authority}) of the marketplace at ${marketplace}: its debits and run logs would be refused`,
  );
}
