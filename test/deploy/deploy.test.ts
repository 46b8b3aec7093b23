// docs/deploy.md followed step by step on a chain that is not the local one (Base Sepolia's id, 84532,
// a block a second): a fresh key funded, `npm run deploy` run as the doc shows with deploy/deploy.env
// filled in, a NATS cluster from deploy/nats/nats-server.conf, and the indexer, API and workers started
// by their systemd units' commands with the units' environment files filled in. Postgres, which the doc
// leaves to the operator, is the test stack's.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createPublicClient, createWalletClient, type Hex, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ensureDevCertificates } from "../../devStack/devCertificates.ts";
import { findFreePort, startOnFreePort } from "../../devStack/findFreePort.ts";
import { spawnService } from "../../devStack/spawnService.ts";
import { type Anvil, startAnvil } from "../../devStack/startAnvil.ts";
import { startStack } from "../../devStack/startStack.ts";
import { devAccount, devPrivateKey } from "../../lib/chain/devAccounts.ts";
import { operatorAccount } from "../../lib/chain/operatorAccount.ts";
import { serviceMarketplaceDeployedBytecode } from "../../lib/contracts/serviceMarketplace.ts";
import { parseEnvironment } from "../../lib/env.ts";
import { EXECUTION_ENV, executionSettings } from "../../workers/executionSettings.ts";
import { CONFIG_DIR, envFileText, fillEnvFile, inCheckout, readUnit, root } from "./deployFiles.ts";

const CHAIN_ID = 84532;
const READY_WITHIN_MS = 90_000;

const deployerKey = generatePrivateKey();
const operatorKey = generatePrivateKey();
const operatorAddress = privateKeyToAccount(operatorKey).address;
const authority = privateKeyToAccount(generatePrivateKey()).address;
const feeRecipient = privateKeyToAccount(generatePrivateKey()).address;
const receiptsKey = generatePrivateKey();
const receiptsSigner = privateKeyToAccount(receiptsKey).address;

const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

let anvil: Anvil;
let databaseUrl: string;
let dir: string;

beforeAll(async () => {
  // The stack's temp dir holds this test's files too, and goes with it.
  const [chain, stack] = await Promise.all([
    // A public testnet's stand-in: its chain id, and a block every second whatever happens.
    startOnFreePort((port) => startAnvil({ port, chainId: CHAIN_ID, blockTimeSeconds: 1 })),
    startStack({ chain: false, postgres: true }),
  ]);
  anvil = chain;
  stops.push(stack.stop, anvil.stop);
  databaseUrl = stack.postgres.databaseUrl;
  dir = join(stack.dir, "deploy");
  await mkdir(dir);
});

const chain = () => createPublicClient({ transport: http(anvil.rpcUrl) });

/** The doc's command: the environment file read into the shell, then `npm run deploy`. */
async function runDeploy(env: Record<string, string>, name: string) {
  const file = join(dir, name);
  await writeFile(file, envFileText(env), { mode: 0o600 });
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn("bash", ["-c", 'set -a; . "$0"; set +a; exec npm run deploy', file], {
      cwd: root,
      // Nothing of this process's environment but where programs are: only what the file gives.
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) {
      stream.on("data", (chunk) => {
        output += chunk;
      });
    }
    child.once("close", (code) => resolve({ code, output }));
  });
}

function deployEnv(given: Record<string, string> = {}) {
  return fillEnvFile(
    "deploy.env",
    {
      RPC_URL: anvil.rpcUrl,
      DEPLOYER_PRIVATE_KEY: deployerKey,
      AUTHORITY_ADDRESS: authority,
      OPERATOR_ADDRESS: operatorAddress,
      FEE_RECIPIENT_ADDRESS: feeRecipient,
      RECEIPTS_SIGNER_ADDRESS: receiptsSigner,
      ...given,
    },
    { DEPLOYMENT_FILE: join(dir, "deployments", `${CHAIN_ID}.json`) },
  );
}

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const ready = (url: string) =>
  poll<{ checks: Record<string, unknown> }>(
    url,
    async () => {
      const reply = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      return reply.status === 200
        ? ((await reply.json()) as { checks: Record<string, unknown> })
        : undefined;
    },
    READY_WITHIN_MS,
  );

describe("docs/deploy.md, on a chain other than the local one", () => {
  let verificationBuild: Promise<string>;
  // The doc's path is in the checkout; the test writes nothing there.
  const recordFile = () => join(dir, "deployments", `${CHAIN_ID}.json`);

  it("step 1: funds a fresh deployer key", async () => {
    const faucet = createWalletClient({ account: devAccount(0), transport: http(anvil.rpcUrl) });
    const deployer = privateKeyToAccount(deployerKey).address;
    const hash = await faucet.sendTransaction({
      to: deployer,
      value: parseEther("1"),
      chain: null,
    });
    await chain().waitForTransactionReceipt({ hash });
    expect(await chain().getBalance({ address: deployer })).toBe(parseEther("1"));
  });

  it("step 2: `npm run deploy` records the deployment as the chain holds it, and refuses a public dev key or the local chain's record file", async () => {
    const env = deployEnv();
    const devKey = { ...deployEnv({ DEPLOYER_PRIVATE_KEY: devPrivateKey(0) }) };
    devKey.DEPLOYMENT_FILE = join(dir, "refused", `${CHAIN_ID}.json`);
    const { DEPLOYMENT_FILE: _, ...noRecordFile } = deployEnv();
    const [deployed, withDevKey, withoutRecordFile] = await Promise.all([
      runDeploy(env, "deploy.env"),
      runDeploy(devKey, "dev-key.env"),
      runDeploy({ ...noRecordFile, DATA_DIR: join(dir, "refused") }, "no-record-file.env"),
    ]);
    expect(withDevKey.code).not.toBe(0);
    expect(withDevKey.output).toContain(`Refusing to deploy on chain ${CHAIN_ID}`);
    expect(withDevKey.output).toContain(
      "DEPLOYER_PRIVATE_KEY is one of anvil's public dev accounts",
    );
    expect(withoutRecordFile.code).not.toBe(0);
    expect(withoutRecordFile.output).toContain(
      `Refusing to deploy on chain ${CHAIN_ID}: set DEPLOYMENT_FILE`,
    );
    expect(existsSync(join(dir, "refused"))).toBe(false);
    expect(deployed.code, deployed.output).toBe(0);
    // The faucet's transfer and one deployment: nothing else was sent.
    expect(await chain().getTransactionCount({ address: devAccount(0).address })).toBe(1);
    const deployer = privateKeyToAccount(deployerKey).address;
    expect(await chain().getTransactionCount({ address: deployer })).toBe(1);

    const record = JSON.parse(await readFile(recordFile(), "utf8"));
    expect(record.chainId).toBe(CHAIN_ID);
    const code = await chain().getCode({ address: record.address });
    expect(code?.toLowerCase()).toBe(serviceMarketplaceDeployedBytecode.toLowerCase());
    const receipt = await chain().getTransactionReceipt({ hash: record.transactionHash });
    expect(receipt.status).toBe("success");
    expect(receipt.contractAddress?.toLowerCase()).toBe(record.address.toLowerCase());
    expect(Number(receipt.blockNumber)).toBe(record.startBlock);
    expect(receipt.blockHash).toBe(record.blockHash);
    expect(record.deployer).toBe(deployer);
    expect(record.constructorArguments).toEqual({
      authority,
      operator: operatorAddress,
      feeRecipient,
      receiptsSigner,
    });

    // The standard-JSON input beside it holds this build's sources and settings.
    expect(record.verificationInput).toBe(`${CHAIN_ID}.standard-input.json`);
    const input = await readFile(join(dir, "deployments", record.verificationInput), "utf8");
    const artifact = JSON.parse(
      await readFile(
        join(root, "contracts/out/ServiceMarketplace.sol/ServiceMarketplace.json"),
        "utf8",
      ),
    );
    const { compilationTarget, ...builtSettings } = artifact.metadata.settings;
    const { sources, settings } = JSON.parse(input);
    const { outputSelection: __, ...inputSettings } = settings;
    expect(inputSettings).toEqual(builtSettings);
    expect(Object.keys(sources)).toEqual(Object.keys(artifact.metadata.sources));
    expect(compilationTarget).toEqual({ "src/ServiceMarketplace.sol": "ServiceMarketplace" });
    expect(record.compiler).toEqual({
      contract: "src/ServiceMarketplace.sol:ServiceMarketplace",
      compilerVersion: `v${artifact.metadata.compiler.version}`,
      settings: builtSettings,
    });
    // Compiled while the service starts, by the build's own compiler (contracts/bin/solc), as an
    // explorer would; checked once it has.
    verificationBuild = compileStandardJson(input);
    verificationBuild.catch(() => {});
  }, 180_000);

  it("steps 3 and 4: the NATS cluster and the units' commands run a ready service with production defaults", async () => {
    const natsPassword = randomBytes(16).toString("hex");
    const nats = await startNatsCluster(natsPassword);
    // A dev CA a local run left in DATA_DIR: off the local chain, nothing trusts it.
    const dataDir = join(dir, "var-lib");
    await ensureDevCertificates(dataDir);
    const ports = {
      API_PORT: await findFreePort(),
      PONDER_PORT: await findFreePort(),
      HEALTH_PORT: await findFreePort(),
    };
    const files: Record<string, Record<string, string>> = {
      "marketplace.env": fillEnvFile(
        "marketplace.env",
        {
          RPC_URL: anvil.rpcUrl,
          DATABASE_URL: databaseUrl,
          JWT_SECRET: randomBytes(32).toString("hex"),
          SEALING_KEY: randomBytes(32).toString("hex"),
          PUBLIC_URL: "https://api.example.com",
        },
        {
          NATS_URL: nats.natsUrl,
          DEPLOYMENT_FILE: recordFile(),
          DATA_DIR: dataDir,
          API_PORT: String(ports.API_PORT),
        },
      ),
      "operator.env": fillEnvFile("operator.env", { OPERATOR_PRIVATE_KEY: operatorKey }),
      "receipts.env": fillEnvFile("receipts.env", { RECEIPTS_PRIVATE_KEY: receiptsKey }),
    };

    const started: Record<string, Record<string, string>> = {};
    for (const name of ["indexer", "api", "workers"]) {
      const unit = readUnit(`marketplace-${name}.service`);
      // systemd: what the environment files set wins over Environment=.
      const env: Record<string, string> = { ...unit.environment };
      for (const file of unit.environmentFiles) Object.assign(env, files[file]);
      // The units' ports, each a free one here.
      if (env.PONDER_PORT) env.PONDER_PORT = String(ports.PONDER_PORT);
      if (env.HEALTH_PORT) env.HEALTH_PORT = String(ports.HEALTH_PORT);
      if (env.METRICS_PORT) env.METRICS_PORT = String(await findFreePort());
      const { service } = spawnService(inCheckout(unit.command), unit.args, {
        cwd: inCheckout(unit.workingDirectory),
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        onOutput: process.env.STACK_VERBOSE ? (line) => process.stderr.write(line) : undefined,
      });
      stops.push(service.stop);
      started[name] = env;
    }

    const api = `http://127.0.0.1:${ports.API_PORT}`;
    const [apiReady, workersReady] = await Promise.all([
      ready(`${api}/readyz`),
      ready(`http://127.0.0.1:${ports.HEALTH_PORT}/readyz`),
    ]);
    expect(Object.keys(apiReady.checks)).toEqual(
      expect.arrayContaining(["postgres", "migrations", "chain", "indexer", "nats"]),
    );
    expect(Object.keys(workersReady.checks)).toEqual(
      expect.arrayContaining(["postgres", "chain", "nats", "consumers"]),
    );

    // The dashboard offers no dev account, and never the API's own RPC_URL.
    const record = JSON.parse(await readFile(recordFile(), "utf8"));
    const dashboard = await (await fetch(`${api}/dashboard/config.json`)).json();
    expect(dashboard).toEqual({
      chain_id: CHAIN_ID,
      rpc_url: "https://sepolia.base.org",
      marketplace: record.address,
      dev_account: null,
    });

    // The workers' environment: no private endpoints, no dev CA; settling needs the operator's key.
    const workersEnv = parseEnvironment(z.object(EXECUTION_ENV), started.workers);
    expect((await executionSettings(workersEnv)).policy).toEqual({ allowPrivateAddresses: false });
    expect(operatorAccount(CHAIN_ID, started.workers?.OPERATOR_PRIVATE_KEY as Hex).address).toBe(
      operatorAddress,
    );
    expect(() => operatorAccount(CHAIN_ID, undefined)).toThrow(/OPERATOR_PRIVATE_KEY must be set/);
  }, 180_000);

  it("step 2: the standard-JSON input compiles to the code at the address", async () => {
    const record = JSON.parse(await readFile(recordFile(), "utf8"));
    const compiled = JSON.parse(await verificationBuild);
    const errors = (compiled.errors ?? []).filter(
      (error: { severity: string }) => error.severity === "error",
    );
    expect(errors).toEqual([]);
    const built = compiled.contracts["src/ServiceMarketplace.sol"].ServiceMarketplace;
    const code = await chain().getCode({ address: record.address });
    expect(`0x${built.evm.deployedBytecode.object}`).toBe(code?.toLowerCase());
    expect(record.compiler.compilerVersion).toBe(`v${solcVersion()}`);
  }, 120_000);

  it("step 4: each unit runs a package script's file from the checkout, and nats-server its config", async () => {
    const scripts = JSON.parse(await readFile(join(root, "package.json"), "utf8")).scripts;
    for (const name of ["indexer", "api", "workers"]) {
      const unit = readUnit(`marketplace-${name}.service`);
      const [file = "", ...rest] = unit.args;
      expect(rest).toEqual([]);
      expect(existsSync(inCheckout(unit.command))).toBe(true);
      expect(existsSync(join(inCheckout(unit.workingDirectory), file))).toBe(true);
      // `npm run <name>` builds, then runs the same file; the install step builds once.
      expect(scripts[name]).toBe(`npm run build:contracts --silent && node ${file}`);
      for (const envFile of unit.environmentFiles) {
        expect(existsSync(join(root, "deploy", envFile))).toBe(true);
      }
    }
    const nats = readUnit("marketplace-nats.service");
    expect(nats.command).toBe("/usr/sbin/nats-server");
    expect(nats.args).toEqual(["-c", `${CONFIG_DIR}/nats-server.conf`]);
  });
});

/**
 * Three nodes from deploy/nats/nats-server.conf: n1 as given, n2 and n3 changed as the doc says (name,
 * listen addresses, routes), every address a loopback port, and the passwords set.
 */
async function startNatsCluster(clientPassword: string) {
  const template = await readFile(join(root, "deploy/nats/nats-server.conf"), "utf8");
  const routePassword = randomBytes(16).toString("hex");
  const nodes = [];
  for (let i = 0; i < 3; i++) {
    nodes.push({
      client: await findFreePort(),
      monitor: await findFreePort(),
      route: await findFreePort(),
    });
  }
  const replace = (text: string, from: string, to: string) => {
    expect(text, `nats-server.conf holds ${from}`).toContain(from);
    return text.replaceAll(from, to);
  };
  const urls: string[] = [];
  for (const [i, node] of nodes.entries()) {
    const [second, third] = nodes.filter((_, j) => j !== i).map((other) => other.route);
    let text = template;
    text = replace(text, "server_name: n1", `server_name: n${i + 1}`);
    text = replace(text, "listen: 10.0.0.1:4222", `listen: 127.0.0.1:${node.client}`);
    text = replace(text, "http: 127.0.0.1:8222", `http: 127.0.0.1:${node.monitor}`);
    text = replace(text, "/var/lib/marketplace-nats", join(dir, `nats-n${i + 1}`));
    text = replace(text, "listen: 10.0.0.1:6222", `listen: 127.0.0.1:${node.route}`);
    text = replace(text, "@10.0.0.2:6222", `@127.0.0.1:${second}`);
    text = replace(text, "@10.0.0.3:6222", `@127.0.0.1:${third}`);
    text = replace(text, "CHANGE-ME-client-password", clientPassword);
    text = replace(text, "CHANGE-ME-route-password", routePassword);
    const file = join(dir, `nats-n${i + 1}.conf`);
    await writeFile(file, text);
    const nats = readUnit("marketplace-nats.service");
    const { service } = spawnService(nats.command, ["-c", file], {});
    stops.push(service.stop);
    urls.push(`nats://marketplace:${clientPassword}@127.0.0.1:${node.client}`);
  }
  await Promise.all(
    nodes.map((node) =>
      poll(
        `NATS node on ${node.client}`,
        async () =>
          (await fetch(`http://127.0.0.1:${node.monitor}/healthz`)).ok ? true : undefined,
        30_000,
      ),
    ),
  );
  return { natsUrl: urls.join(",") };
}

/** solc's output for a standard-JSON input, from the build's compiler in a process of its own. */
function compileStandardJson(input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, "contracts/bin/solc"), "--standard-json"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.once("close", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`solc exited with ${code}`)),
    );
    child.stdin.end(input);
  });
}

/** The build's compiler's version as `contracts/bin/solc --version` tells it to forge. */
function solcVersion(): string {
  const output = execFileSync(process.execPath, [join(root, "contracts/bin/solc"), "--version"], {
    encoding: "utf8",
  });
  return (output.match(/Version: (\S+)/)?.[1] ?? "").replace(/\.Linux\.g\+\+$/, "");
}
