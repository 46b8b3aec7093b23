// The solc standard-JSON input an explorer compiles to verify the deployed marketplace's source,
// rebuilt from the forge build's metadata: its settings and, for each source, the file's text, which
// must hash to what the build compiled.
import { readFile } from "node:fs/promises";
import { keccak256, toBytes } from "viem";

const contractsDir = new URL("../contracts/", import.meta.url);
const artifactFile = new URL("out/ServiceMarketplace.sol/ServiceMarketplace.json", contractsDir);

type Metadata = {
  compiler: { version: string };
  language: string;
  settings: { compilationTarget: Record<string, string> } & Record<string, unknown>;
  sources: Record<string, { keccak256: string }>;
};

/** What the build compiled: the contract's fully qualified name, solc's version and its settings. */
export type Compilation = {
  contract: string;
  compilerVersion: string;
  settings: Record<string, unknown>;
};

export type StandardJsonInput = {
  language: string;
  sources: Record<string, { content: string }>;
  settings: Record<string, unknown>;
};

async function buildMetadata(): Promise<Metadata> {
  const artifact = JSON.parse(await readFile(artifactFile, "utf8")) as { metadata: Metadata };
  return artifact.metadata;
}

export async function marketplaceCompilation(): Promise<Compilation> {
  const { compiler, settings } = await buildMetadata();
  const { compilationTarget, ...rest } = settings;
  const [target] = Object.entries(compilationTarget);
  if (!target) throw new Error("the build's metadata names no compilation target");
  return {
    contract: `${target[0]}:${target[1]}`,
    compilerVersion: `v${compiler.version}`,
    settings: rest,
  };
}

export async function marketplaceVerificationInput(): Promise<StandardJsonInput> {
  const metadata = await buildMetadata();
  const sources: StandardJsonInput["sources"] = {};
  for (const [path, { keccak256: builtHash }] of Object.entries(metadata.sources)) {
    const content = await readFile(new URL(path, contractsDir), "utf8");
    if (keccak256(toBytes(content)) !== builtHash) {
      throw new Error(`contracts/${path} changed since the build: run npm run build:contracts`);
    }
    sources[path] = { content };
  }
  const { settings } = await marketplaceCompilation();
  return {
    language: metadata.language,
    sources,
    settings: {
      ...settings,
      outputSelection: {
        "*": { "*": ["abi", "evm.bytecode", "evm.deployedBytecode", "metadata"] },
      },
    },
  };
}
