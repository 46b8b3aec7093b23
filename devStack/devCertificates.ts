// A certificate authority for the local chain only, so a connected agent on this machine is called
// over real HTTPS: its key never leaves DATA_DIR, and workers trust it only on chain 31337.
import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import forge from "node-forge";
import {
  devCaCertificateFile,
  devCaDirectory,
} from "../workers/execution/outbound/outboundPolicy.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** A server certificate closer than this to its end is issued again at the next start. */
const RENEW_BEFORE_MS = 30 * DAY_MS;

/** PEM texts: the CA's certificate, and a key and certificate for 127.0.0.1, ::1 and localhost. */
export type DevCertificates = {
  caCertificate: string;
  serverKey: string;
  serverCertificate: string;
};

type KeyPair = { publicKey: string; privateKey: string };

/**
 * The dev CA and server certificate kept in DATA_DIR/dev-ca, made on first use (keys mode 0600, the
 * folder 0700); the server certificate is issued again when it nears its end.
 */
export async function ensureDevCertificates(dataDir: string): Promise<DevCertificates> {
  const folder = devCaDirectory(dataDir);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(folder, 0o700);
  const files = {
    caKey: join(folder, "ca.key"),
    caCertificate: devCaCertificateFile(dataDir),
    serverKey: join(folder, "server.key"),
    serverCertificate: join(folder, "server.pem"),
  };

  let ca = await readPair(files.caKey, files.caCertificate);
  if (!ca) {
    const keys = newKeyPair();
    ca = { key: keys.privateKey, certificate: issueCaCertificate(keys) };
    await writeFile(files.caKey, ca.key, { mode: 0o600 });
    await writeFile(files.caCertificate, ca.certificate);
  }
  let server = await readPair(files.serverKey, files.serverCertificate);
  if (!server || !issuedBy(server.certificate, ca.certificate) || nearsItsEnd(server.certificate)) {
    const keys = newKeyPair();
    server = { key: keys.privateKey, certificate: issueServerCertificate(keys, ca) };
    await writeFile(files.serverKey, server.key, { mode: 0o600 });
    await writeFile(files.serverCertificate, server.certificate);
  }
  return {
    caCertificate: ca.certificate,
    serverKey: server.key,
    serverCertificate: server.certificate,
  };
}

/** A fresh CA and server certificate, kept nowhere: for tests. */
export function createDevCertificates(): DevCertificates {
  const caKeys = newKeyPair();
  const ca = { key: caKeys.privateKey, certificate: issueCaCertificate(caKeys) };
  const serverKeys = newKeyPair();
  return {
    caCertificate: ca.certificate,
    serverKey: serverKeys.privateKey,
    serverCertificate: issueServerCertificate(serverKeys, ca),
  };
}

const CA_NAME = [{ name: "commonName", value: "Agent marketplace local dev CA" }];

function issueCaCertificate(keys: KeyPair): string {
  return issue({
    subject: CA_NAME,
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    validForDays: 3650,
    extensions: [
      { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
      { name: "subjectKeyIdentifier" },
    ],
  });
}

function issueServerCertificate(keys: KeyPair, ca: { key: string; certificate: string }): string {
  return issue({
    subject: [{ name: "commonName", value: "localhost" }],
    publicKey: keys.publicKey,
    signingKey: ca.key,
    validForDays: 365,
    extensions: [
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
        ],
      },
    ],
  });
}

function issue(options: {
  subject: forge.pki.CertificateField[];
  publicKey: string;
  signingKey: string;
  validForDays: number;
  extensions: object[];
}): string {
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(options.publicKey);
  // Positive and random, as RFC 5280 asks, and its first byte never 0x00: a leading zero byte
  // before one below 0x80 is a non-minimal DER integer, which OpenSSL refuses ("illegal padding").
  certificate.serialNumber = `1${forge.util.bytesToHex(forge.random.getBytesSync(16)).slice(1)}`;
  certificate.validity.notBefore = new Date(Date.now() - DAY_MS);
  certificate.validity.notAfter = new Date(Date.now() + options.validForDays * DAY_MS);
  certificate.setSubject(options.subject);
  certificate.setIssuer(CA_NAME);
  certificate.setExtensions(options.extensions);
  certificate.sign(forge.pki.privateKeyFromPem(options.signingKey), forge.md.sha256.create());
  return forge.pki.certificateToPem(certificate);
}

/** Node makes the keys (forge's own RSA key generation is slow); forge only writes certificates. */
function newKeyPair(): KeyPair {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}

async function readPair(
  keyFile: string,
  certificateFile: string,
): Promise<{ key: string; certificate: string } | undefined> {
  try {
    return {
      key: await readFile(keyFile, "utf8"),
      certificate: await readFile(certificateFile, "utf8"),
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function issuedBy(certificate: string, caCertificate: string): boolean {
  return new X509Certificate(certificate).verify(new X509Certificate(caCertificate).publicKey);
}

function nearsItsEnd(certificate: string): boolean {
  return new X509Certificate(certificate).validToDate.getTime() - Date.now() < RENEW_BEFORE_MS;
}
