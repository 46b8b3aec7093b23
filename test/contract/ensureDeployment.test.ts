import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startOnFreePort } from "../../devStack/findFreePort.ts";
import { type Anvil, rpcRequest, startAnvil } from "../../devStack/startAnvil.ts";
import { makeTempDir } from "../../devStack/tempDir.ts";
import { localDeploymentAccounts } from "../../lib/chain/devAccounts.ts";
import { ensureDeployment } from "../../lib/chain/ensureDeployment.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
});

/** A chain of `chainId` and a deployment record on it, with the dev accounts as every role. */
async function chainWithRecord(chainId: number) {
  const anvil: Anvil = await startOnFreePort((port) => startAnvil({ port, chainId }));
  const temp = await makeTempDir("deployment");
  cleanups.push(anvil.stop, temp.remove);
  const file = join(temp.dir, "deployment.json");
  const ensure = () =>
    ensureDeployment(file, { rpcUrl: anvil.rpcUrl, accounts: localDeploymentAccounts });
  /** Replaces the code at `address`, as a contract of an older build would be. */
  const runOtherCode = (address: string) =>
    rpcRequest(anvil.rpcUrl, "anvil_setCode", [address, "0x60006000fd"]);
  return { ensure, runOtherCode };
}

describe("the recorded deployment", () => {
  it("is reused while the chain runs this build's code there", async () => {
    const { ensure } = await chainWithRecord(31337);
    const first = await ensure();
    expect(first.deployedNow).toBe(true);
    expect(await ensure()).toEqual({ deployment: first.deployment, deployedNow: false });
  });

  it("is replaced on the local chain once it runs other code (a contract of an older build)", async () => {
    const { ensure, runOtherCode } = await chainWithRecord(31337);
    const old = await ensure();
    await runOtherCode(old.deployment.address);

    const renewed = await ensure();
    expect(renewed.deployedNow).toBe(true);
    expect(renewed.deployment.address).not.toBe(old.deployment.address);
    expect(await ensure()).toEqual({ deployment: renewed.deployment, deployedNow: false });
  });

  it("stops the start on any other chain when it runs other code, deploying nothing", async () => {
    const { ensure, runOtherCode } = await chainWithRecord(8453);
    const old = await ensure();
    await runOtherCode(old.deployment.address);

    await expect(ensure()).rejects.toThrow(
      new RegExp(`${old.deployment.address} on chain 8453\\) runs other code than this build`),
    );
  });
});
