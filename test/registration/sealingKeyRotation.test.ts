// Finding: keys in production. Every sealed row names the key that sealed it, so a row under a key
// a process does not hold is reported as exactly that; `npm run reseal` moves every row from the old
// key to a new one, row by row, safely run twice at once or again after an interruption; a worker
// started with the new key then opens what was sealed under the old one.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Api } from "../../devStack/startApi.ts";
import type { Worker } from "../../devStack/startWorker.ts";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { openRecord, SealedUnderAnotherKey } from "../../lib/crypto/sealedRecord.ts";
import { sealingKeyId } from "../../lib/crypto/sealingKeyId.ts";
import { parseSecretKey, seal } from "../../lib/crypto/secretBox.ts";
import { agentSecrets, jobs } from "../../lib/db/appSchema.ts";
import { http, signIn } from "../support/http.ts";
import {
  declarativeManifest,
  REGISTRATION_STACK,
  registerAgent,
  settledJob,
  until,
} from "../support/registration.ts";
import { secretScan } from "../support/secretScan.ts";
import { useStack } from "../support/useStack.ts";

const resealScript = fileURLToPath(new URL("../../scripts/reseal.ts", import.meta.url));
const creator = devAccount(12);
const [keyA, keyB, keyC] = [0, 1, 2].map(() => randomBytes(32).toString("hex")) as [
  string,
  string,
  string,
];
const [idA, idB, idC] = [keyA, keyB, keyC].map((key) => sealingKeyId(parseSecretKey(key)));
const tag = randomBytes(6).toString("hex");
const prompt = (name: string) => `PROMPT-OF-${name}-${tag}`;
const vendorKey = `sk-ROTATION-VENDOR-${tag}`;
const manifest = (name: string) =>
  declarativeManifest(name, {
    system_prompt: prompt(name),
    vendor_credentials: { api_key: vendorKey },
  });

const scan = secretScan();
for (const key of [keyA, keyB, keyC]) scan.remember("sealing key", key);
for (const name of ["listed", "queued", "elsewhere", "legacy"]) {
  scan.remember("system prompt", prompt(name));
}
scan.remember("vendor credential", vendorKey);

// Its API and worker processes are started below, each with the sealing key of its step.
const stack = useStack({ ...REGISTRATION_STACK, api: 0, workers: 0, onOutput: scan.onOutput });

/** The ids of this file's rows, as they are made. */
const made = { listedListing: "", queuedJob: "", elsewhereJob: "", legacyListing: "" };

async function clientOf(apiUrl: string) {
  const token = await signIn(apiUrl, creator);
  scan.remember("JWT", token);
  return http(apiUrl, { bearer: token });
}

/** `npm run reseal -- args` against the stack's database: its exit code and what it printed. */
function reseal(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [resealScript, ...args], {
    env: { ...process.env, DATABASE_URL: stack().postgres.databaseUrl, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    scan.onOutput(chunk.toString());
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, output })),
  );
}

async function keyFileOf(key: string) {
  const path = join(stack().dir, `key-${randomBytes(4).toString("hex")}`);
  await writeFile(path, key, { mode: 0o600 });
  return path;
}

async function keyIdsOf() {
  const db = stack().db;
  const secrets = await db
    .select({ id: agentSecrets.onChainListingId, keyId: agentSecrets.sealingKeyId })
    .from(agentSecrets)
    .where(inArray(agentSecrets.onChainListingId, [made.listedListing, made.legacyListing]));
  const requests = await db
    .select({ id: jobs.id, keyId: jobs.sealingKeyId })
    .from(jobs)
    .where(inArray(jobs.id, [made.queuedJob, made.elsewhereJob]));
  const byId = new Map([...secrets, ...requests].map((row) => [row.id, row.keyId]));
  return {
    listed: byId.get(made.listedListing),
    legacy: byId.get(made.legacyListing),
    queued: byId.get(made.queuedJob),
    elsewhere: byId.get(made.elsewhereJob),
  };
}

// Each test but the last starts node processes (`npm run reseal`, an API, a worker): about 2 s of CPU
// each, which a loaded two-core machine stretches to 30 s and more. The tests are given the time of
// the processes they start.
describe("finding: keys in production (sealing key ids and rotation)", { timeout: 180_000 }, () => {
  let apiA: Api;
  let workerA: Worker;
  let apiC: Api;
  // Started together, before the tests: each takes 10 to 20 s to start on a loaded machine.
  beforeAll(async () => {
    [apiA, workerA, apiC] = await Promise.all([
      stack().addApi({ SEALING_KEY: keyA }),
      stack().addWorker({ SEALING_KEY: keyA }),
      stack().addApi({ SEALING_KEY: keyC }),
    ]);
  });

  it("names the key under which each row is sealed", async () => {
    const asCreator = await clientOf(apiA.url);
    const listed = await settledJob(asCreator, await registerAgent(asCreator, manifest("listed")));
    expect(listed.body.status).toBe("completed");
    made.listedListing = listed.body.result.create_listing.on_chain_listing_id;

    // No worker holds the jobs below: they stay queued, sealed under the key of the API that took them.
    await workerA.stop();
    made.queuedJob = await registerAgent(asCreator, manifest("queued"));
    made.elsewhereJob = await registerAgent(await clientOf(apiC.url), manifest("elsewhere"));
    await Promise.all([apiA.stop(), apiC.stop()]);

    // A private part sealed before key ids were kept: no id, sealed under the old key.
    made.legacyListing = `0x${randomBytes(32).toString("hex")}`;
    const legacySecret = JSON.stringify({ system_prompt: prompt("legacy") });
    await stack()
      .db.insert(agentSecrets)
      .values({
        onChainListingId: made.legacyListing,
        sealed: seal(parseSecretKey(keyA), Buffer.from(legacySecret), made.legacyListing),
      });

    expect(await keyIdsOf()).toEqual({ listed: idA, legacy: null, queued: idA, elsewhere: idC });
  });

  it("reseals every row under the new key, row by row, even with two runs at once", async () => {
    const to = await keyFileOf(keyB);
    const runs = await Promise.all(
      [0, 1].map(() =>
        reseal(["--from", "env:OLD_SEALING_KEY", "--to", to], { OLD_SEALING_KEY: keyA }),
      ),
    );
    const resealed = runs.map((run) => Number(/Resealed (\d+) rows/.exec(run.output)?.[1]));
    expect(resealed.reduce((sum, count) => sum + count, 0)).toBe(3);
    for (const run of runs) {
      expect(run.output).toContain(`from sealing key ${idA} to ${idB}`);
      // The row under a third key is left as it was, and named with the key it needs.
      expect(run.code).toBe(1);
      expect(run.output).toContain(
        `jobs ${made.elsewhereJob}: sealed under sealing key ${idC}, neither --from (${idA}) nor --to (${idB})`,
      );
    }
    expect(await keyIdsOf()).toEqual({ listed: idB, legacy: idB, queued: idB, elsewhere: idC });

    const [row] = await stack()
      .db.select()
      .from(agentSecrets)
      .where(eq(agentSecrets.onChainListingId, made.listedListing));
    if (!row) throw new Error("the listed agent has no sealed secret");
    const opened = JSON.parse(openRecord(parseSecretKey(keyB), row, made.listedListing).toString());
    expect(opened).toEqual({
      system_prompt: prompt("listed"),
      vendor_credentials: { api_key: vendorKey },
    });
    expect(() => openRecord(parseSecretKey(keyA), row, made.listedListing)).toThrow(
      SealedUnderAnotherKey,
    );
  });

  it("finds nothing left to do when run again, as after an interruption", async () => {
    const run = await reseal(["--from", await keyFileOf(keyA), "--to", await keyFileOf(keyB)]);
    expect(run.output).toContain(
      `Resealed 0 rows from sealing key ${idA} to ${idB}; 3 were under it already.`,
    );
    expect(run.output).toContain(`Not resealed (1):\n  jobs ${made.elsewhereJob}:`);
    expect(run.code).toBe(1);
  });

  it("takes keys from files or the environment only, and never makes up the old one", async () => {
    const missing = join(stack().dir, "no-such-key");
    const [onCommandLine, noOldKey] = await Promise.all([
      reseal(["--from", keyA, "--to", await keyFileOf(keyB)]),
      reseal(["--from", missing, "--to", await keyFileOf(keyB)]),
    ]);
    expect(onCommandLine).toEqual({
      code: 1,
      output: "give the key as a file or env:NAME, not on the command line\n",
    });
    expect(noOldKey).toEqual({ code: 1, output: `there is no key file at ${missing}\n` });
    expect(await keyIdsOf()).toEqual({ listed: idB, legacy: idB, queued: idB, elsewhere: idC });
  });

  it("lets a worker with the new key open what the old key sealed, and name the key it lacks", async () => {
    const [apiB] = await Promise.all([
      stack().addApi({ SEALING_KEY: keyB }),
      stack().addWorker({ SEALING_KEY: keyB }),
    ]);
    const asCreator = await clientOf(apiB.url);

    const queued = await settledJob(asCreator, made.queuedJob);
    expect(queued.body.status).toBe("completed");
    const listingId = queued.body.result.create_listing.on_chain_listing_id;
    const [row] = await stack()
      .db.select()
      .from(agentSecrets)
      .where(eq(agentSecrets.onChainListingId, listingId));
    if (!row) throw new Error("the queued agent has no sealed secret");
    expect(row.sealingKeyId).toBe(idB);
    expect(JSON.parse(openRecord(parseSecretKey(keyB), row, listingId).toString())).toMatchObject({
      system_prompt: prompt("queued"),
    });

    const elsewhere = await settledJob(asCreator, made.elsewhereJob);
    expect(elsewhere.body).toEqual({
      job_id: made.elsewhereJob,
      status: "failed",
      error: { code: "internal_error", message: expect.any(String) },
    });
    const failure = await until("the worker's log of the job it cannot open", () =>
      scan
        .entries()
        .find((entry) => entry.job_id === made.elsewhereJob && entry.component === "worker"),
    );
    expect(failure).toMatchObject({
      message: "registration attempt failed",
      permanent: true,
      error: `the sealed request cannot be opened: sealed under sealing key ${idC}, but this process holds sealing key ${idB}`,
    });
  });

  it("prints no key, prompt, credential or token in any process's output", () => {
    expect(scan.unheard(["postgres", "nats", "api", "worker"])).toEqual([]);
    expect(scan.text()).toContain(`from sealing key ${idA} to ${idB}`);
    expect(scan.leaks(stack())).toEqual([]);
  });
});
