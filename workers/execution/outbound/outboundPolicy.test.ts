import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir } from "../../../devStack/tempDir.ts";
import { writeDeployment } from "../../../lib/chain/deploymentFile.ts";
import { devCaCertificateFile, loadOutboundPolicy } from "./outboundPolicy.ts";

const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const removals: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const remove of removals.splice(0)) await remove();
});

/** A DATA_DIR with a deployment record on `chainId` (none when undefined) and a dev CA. */
async function dataDir(chainId: number | undefined): Promise<string> {
  const { dir, remove } = await makeTempDir("outbound-policy");
  removals.push(remove);
  if (chainId !== undefined) {
    await writeDeployment(join(dir, "deployment.json"), {
      chainId,
      address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      startBlock: 1,
      transactionHash: `0x${"1".repeat(64)}`,
    });
  }
  await mkdir(join(dir, "dev-ca"), { recursive: true });
  await writeFile(devCaCertificateFile(dir), CA);
  return dir;
}

describe("the outbound policy a worker loads", () => {
  it("on the local chain allows private addresses and trusts the dev CA", async () => {
    const policy = await loadOutboundPolicy({ DATA_DIR: await dataDir(31337) });
    expect(policy).toEqual({ allowPrivateAddresses: true, extraCa: CA });
  });

  it("on any other chain allows neither, though a dev CA lies in DATA_DIR", async () => {
    expect(await loadOutboundPolicy({ DATA_DIR: await dataDir(1) })).toEqual({
      allowPrivateAddresses: false,
    });
  });

  it("without a deployment record allows neither", async () => {
    expect(await loadOutboundPolicy({ DATA_DIR: await dataDir(undefined) })).toEqual({
      allowPrivateAddresses: false,
    });
  });

  it("lets ALLOW_PRIVATE_ENDPOINTS decide private addresses, never the CA", async () => {
    const local = await loadOutboundPolicy({
      DATA_DIR: await dataDir(31337),
      ALLOW_PRIVATE_ENDPOINTS: false,
    });
    expect(local).toEqual({ allowPrivateAddresses: false, extraCa: CA });
    const other = await loadOutboundPolicy({
      DATA_DIR: await dataDir(8453),
      ALLOW_PRIVATE_ENDPOINTS: true,
    });
    expect(other).toEqual({ allowPrivateAddresses: true });
  });

  it("on the local chain without a dev CA trusts the default roots only", async () => {
    const { dir, remove } = await makeTempDir("outbound-policy");
    removals.push(remove);
    await writeDeployment(join(dir, "deployment.json"), {
      chainId: 31337,
      address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      startBlock: 1,
      transactionHash: `0x${"1".repeat(64)}`,
    });
    expect(await loadOutboundPolicy({ DATA_DIR: dir })).toEqual({ allowPrivateAddresses: true });
  });
});
