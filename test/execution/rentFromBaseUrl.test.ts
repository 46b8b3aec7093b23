// A renter who holds only the API's base URL and a funded wallet: the API says which chain and
// contract to pay (with its ABI), search finds the listing and its detail says exactly which call to
// send; the renter sends it with viem and runs a task. Nothing here names the contract's address,
// its functions or the listing's id.
import {
  type Abi,
  createWalletClient,
  encodeFunctionData,
  parseEther,
  publicActions,
  http as rpc,
} from "viem";
import { beforeAll, expect, it } from "vitest";
import { type ModelServers, startModelServers } from "../../devStack/startModelServers.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { type DeclarativeListing, listDeclarativeAgent } from "../support/declarativeOnStack.ts";
import { http, signIn } from "../support/http.ts";
import { useStack } from "../support/useStack.ts";

const stack = useStack({ api: 0, ponder: true });
const PRICE = parseEther("0.002");

let servers: ModelServers;
let listing: DeclarativeListing;
beforeAll(async () => {
  servers = await startModelServers(stack());
  await stack().addApi(servers.env);
  listing = await listDeclarativeAgent(stack(), servers, {
    name: "base-url-only",
    provider: "openai",
    price: PRICE,
    manifest: { title: "Lighthouse Logbook Keeper" },
  });
  return () => servers.stop();
});

type AbiFunction = { type: string; name: string; inputs: { type: string }[] };

/** The call's arguments as the ABI types them: the API sends integers as decimal strings. */
function typedArgs(abi: AbiFunction[], functionName: string, args: string[]) {
  const inputs = abi.find((item) => item.type === "function" && item.name === functionName)?.inputs;
  expect(inputs?.length).toBe(args.length);
  return args.map((arg, i) => (inputs?.[i]?.type.startsWith("uint") ? BigInt(arg) : arg));
}

it("buys a listing with the detail's purchase call on the contract the API names, then runs a task", async () => {
  const baseUrl = stack().api.url;
  const renter = devAccount(6);
  const anonymous = http(baseUrl);
  const market = (await anonymous.get("/v1/marketplace")).body;
  const abi = (await anonymous.get(market.abi_url)).body as AbiFunction[];

  const api = http(baseUrl, { bearer: await signIn(baseUrl, renter) });
  const [found] = (await api.get("/v1/listings?q=lighthouse logbook")).body.listings;
  expect(found).toMatchObject({ id: listing.agentId, title: "Lighthouse Logbook Keeper" });
  const detail = (await api.get(`/v1/listings/${found.id}`)).body;
  expect(detail.purchase).toMatchObject({
    chain_id: market.chain_id,
    contract_address: market.contract_address,
    rental_model: "per_query",
  });
  const [deposit] = detail.purchase.options;
  expect(deposit).toMatchObject({ runs: 1, value: PRICE.toString() });

  const wallet = createWalletClient({
    account: renter,
    transport: rpc(stack().anvil.rpcUrl),
  }).extend(publicActions);
  expect(await wallet.getChainId()).toBe(market.chain_id);
  const hash = await wallet.sendTransaction({
    chain: null,
    to: market.contract_address,
    data: encodeFunctionData({
      abi: abi as Abi,
      functionName: deposit.function_name,
      args: typedArgs(abi, deposit.function_name, deposit.args),
    }),
    value: BigInt(deposit.value),
  });
  const receipt = await wallet.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");

  servers.vendor.script(listing.model, [{ kind: "text", text: "Bought and answered." }]);
  const run = await api.post("/v1/execute", {
    agent_id: found.id,
    task: "Hello",
    input: {},
  });
  expect(run.body).toMatchObject({
    status: "completed",
    output: "Bought and answered.",
    cost_wei: Number(PRICE),
  });
});
