import { X509Certificate } from "node:crypto";
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { makeTempDir } from "../../devStack/tempDir.ts";

let dataDir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir: dataDir, remove } = await makeTempDir("dev-ca"));
});
afterAll(() => remove());

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe("the dev certificate authority", () => {
  it("is made once in DATA_DIR/dev-ca, its keys readable by the owner only", async () => {
    const first = await ensureDevCertificates(dataDir);
    const folder = join(dataDir, "dev-ca");
    expect(await mode(folder)).toBe(0o700);
    expect(await mode(join(folder, "ca.key"))).toBe(0o600);
    expect(await mode(join(folder, "server.key"))).toBe(0o600);
    expect(await readFile(join(folder, "ca.pem"), "utf8")).toBe(first.caCertificate);

    expect(await ensureDevCertificates(dataDir)).toEqual(first);
  });

  it("issues a server certificate for localhost, 127.0.0.1 and ::1, and only a CA may sign", async () => {
    const { caCertificate, serverCertificate } = await ensureDevCertificates(dataDir);
    const ca = new X509Certificate(caCertificate);
    const server = new X509Certificate(serverCertificate);
    expect(ca.ca).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.checkHost("localhost")).toBe("localhost");
    expect(server.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(server.checkIP("::1")).toBe("::1");
    expect(server.checkHost("example.com")).toBeUndefined();
  });

  it("issues the server certificate again under a new CA when the old CA is gone", async () => {
    const before = await ensureDevCertificates(dataDir);
    await rm(join(dataDir, "dev-ca", "ca.key"));
    const after = await ensureDevCertificates(dataDir);
    expect(after.caCertificate).not.toBe(before.caCertificate);
    expect(after.serverCertificate).not.toBe(before.serverCertificate);
    const ca = new X509Certificate(after.caCertificate);
    expect(new X509Certificate(after.serverCertificate).verify(ca.publicKey)).toBe(true);
  });
});
