// The model servers declarative agents run on, on a stack: the hosted vendors and a creator's
// self-hosted model server (HTTPS, its certificate from the stack's dev CA), played by vendor
// emulators in this process.
import { ensureDevCertificates } from "./devCertificates.ts";
import type { Stack } from "./startStack.ts";
import { startVendorEmulator, type VendorEmulator } from "./vendorEmulator/startVendorEmulator.ts";

export type ModelServers = {
  /** Both hosted vendors. */
  vendor: VendorEmulator;
  /** A creator's own OpenAI-compatible server. */
  selfHosted: VendorEmulator;
  /** What a process running the workers needs to reach the hosted vendors. */
  env: Record<string, string>;
  stop: () => Promise<void>;
};

/** Starts the model servers; before any worker, since workers read the dev CA at start. */
export async function startModelServers(stack: Stack): Promise<ModelServers> {
  const certificates = await ensureDevCertificates(stack.dir);
  const vendor = await startVendorEmulator();
  const selfHosted = await startVendorEmulator({
    tls: { key: certificates.serverKey, cert: certificates.serverCertificate },
  });
  return {
    vendor,
    selfHosted,
    env: { OPENAI_BASE_URL: vendor.openaiBaseUrl, ANTHROPIC_BASE_URL: vendor.anthropicBaseUrl },
    stop: async () => {
      await vendor.stop();
      await selfHosted.stop();
    },
  };
}
