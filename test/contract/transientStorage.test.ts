import { afterAll, describe, expect, it } from "vitest";
import { startOnFreePort } from "../../devStack/findFreePort.ts";
import { type Anvil, rpcRequest, startAnvil } from "../../devStack/startAnvil.ts";
import { deployMarketplace } from "../../lib/chain/deployMarketplace.ts";
import { devAccount, localDeploymentAccounts } from "../../lib/chain/devAccounts.ts";

const started: Anvil[] = [];
afterAll(async () => {
  await Promise.all(started.map((anvil) => anvil.stop()));
});

async function deployOn(hardfork?: string) {
  const anvil = await startOnFreePort((port) => startAnvil({ port, hardfork }));
  started.push(anvil);
  return deployMarketplace({ rpcUrl: anvil.rpcUrl, ...localDeploymentAccounts() });
}

describe("finding: safe deployment defaults (deploying the marketplace)", () => {
  it("fails clearly on a chain without transient storage, deploying nothing", async () => {
    await expect(deployOn("shanghai")).rejects.toThrow(/no transient storage \(EIP-1153/);
    const shanghai = started[0] as Anvil;
    const sent = await rpcRequest(shanghai.rpcUrl, "eth_getTransactionCount", [
      devAccount(0).address,
      "latest",
    ]);
    expect(sent).toBe("0x0");
  });

  it("succeeds where the chain has it", async () => {
    await expect(deployOn("cancun")).resolves.toMatchObject({ chainId: 31337 });
  });
});
