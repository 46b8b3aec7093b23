import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { getAddress } from "viem";
import { z } from "zod/v4";
import type { Deployment } from "./deployMarketplace.ts";

const deploymentSchema = z.object({
  chainId: z.number().int().positive(),
  address: z.string().transform((value) => getAddress(value)),
  startBlock: z.number().int().nonnegative(),
  transactionHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/) as z.ZodType<`0x${string}`>,
});

/** The recorded deployment, or undefined when none was written yet. */
export async function readDeployment(path: string): Promise<Deployment | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return parseDeployment(text);
}

/** The recorded deployment; a process that needs the marketplace stops without one. */
export async function requireDeployment(path: string): Promise<Deployment> {
  const deployment = await readDeployment(path);
  if (!deployment) throw new Error(`No deployment recorded in ${path}`);
  return deployment;
}

export function parseDeployment(text: string): Deployment {
  return deploymentSchema.parse(JSON.parse(text));
}

export async function writeDeployment(path: string, deployment: Deployment): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(deployment, null, 2)}\n`);
}
