// The OpenAPI document against the real API: every endpoint is called, successes and failures, and
// every answer must match the document's response for its path, method and status (JSON Schema
// 2020-12 through Ajv); every operation's success must have been seen, and a failure of its own for
// every operation that documents one. The document itself passes Redocly's recommended rules without
// an error.
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Browser } from "playwright-core";
import { parseEther } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { devAccount } from "../../lib/chain/devAccounts.ts";
import { behaving } from "../support/behavingAgent.ts";
import { launchBrowser, screenshotPath } from "../support/browser.ts";
import { http, type Send, signIn } from "../support/http.ts";
import { usePerTaskAgentOnStack } from "../support/perTaskAgentOnStack.ts";
import { declarativeManifest, until } from "../support/registration.ts";

const PRICE = parseEther("0.001");
const { stack, listing, addRenter } = usePerTaskAgentOnStack({
  name: "contract-checked",
  price: PRICE,
  startProcesses: () => stack().addWorker(),
});

type Document = {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  webhooks: Record<string, Record<string, object>>;
  components: { schemas: Record<string, object> };
};
type ResponseObject = { content?: Record<string, { schema: object }> };

const fetchDocument = async (): Promise<Document> =>
  (await fetch(`${stack().api.url}/v1/openapi.json`)).json() as Promise<Document>;

/** `/v1/listings/lst_…` as the document's `/v1/listings/{id}`. */
function templateOf(document: Document, method: string, path: string): string | undefined {
  const segments = path.split("?")[0]?.split("/") ?? [];
  return Object.keys(document.paths).find((template) => {
    const parts = template.split("/");
    return (
      parts.length === segments.length &&
      parts.every((part, i) => part.startsWith("{") || part === segments[i]) &&
      document.paths[template]?.[method] !== undefined
    );
  });
}

/** What any request may be answered (rate limit, fault, outage), not a failure of its own. */
const ANY_REQUEST_STATUSES = ["429", "500", "503"];

/** The operations seen answered, `get /v1/listings/{id}`: with a success, with a 4xx. */
type Seen = { succeeded: Set<string>; failed: Set<string> };

/** A `send` that holds every answer to the document and records which operations it saw how. */
function checkedSend(document: Document, seen: Seen): Send {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: "openapi.json", components: document.components });
  return async (url, init) => {
    const response = await fetch(url, init);
    const method = (init.method ?? "GET").toLowerCase();
    const path = new URL(url).pathname;
    const template = templateOf(document, method, path);
    expect(template, `${method} ${path} is not in the document`).toBeDefined();
    const described = document.paths[template ?? ""]?.[method]?.responses[response.status];
    expect(described, `${method} ${template} does not describe ${response.status}`).toBeDefined();
    const schema = described?.content?.["application/json"]?.schema;
    if (schema) {
      const body = await response.clone().json();
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"openapi.json#/components')),
      );
      expect(
        validate(body),
        `${method} ${path} ${response.status}: ${ajv.errorsText(validate.errors)}`,
      ).toBe(true);
    }
    if (response.status < 300) seen.succeeded.add(`${method} ${template}`);
    if (response.status >= 400 && response.status < 500) seen.failed.add(`${method} ${template}`);
    return response;
  };
}

describe("the OpenAPI document", () => {
  it("is served without authentication and passes Redocly's recommended rules", async () => {
    const response = await fetch(`${stack().api.url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ openapi: "3.1.0" });
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
    expect(problems.filter((problem) => problem.severity === "error")).toEqual([]);
  });

  it("describes every answer of every endpoint, successes and errors", async () => {
    const document = await fetchDocument();
    const seen: Seen = { succeeded: new Set(), failed: new Set() };
    const send = checkedSend(document, seen);
    const url = stack().api.url;
    const renter = await addRenter(PRICE * 3n);
    const creator = devAccount(2);
    const creatorToken = await signIn(url, creator);
    const anonymous = http(url, { send });
    const asRenter = http(url, { send, bearer: renter.bearer });
    const asCreator = http(url, { send, bearer: creatorToken });
    const stranger = http(url, { send, bearer: await signIn(url, devAccount(7)) });
    const id = listing().agentId;
    const unknownListing = `lst_${"0".repeat(64)}`;

    // Authentication.
    const challenge = await anonymous.get(`/v1/auth/challenge?wallet=${creator.address}`);
    expect(challenge.status).toBe(200);
    const signature = await creator.signMessage({ message: challenge.body.challenge });
    expect(
      (
        await anonymous.post("/v1/auth/token", {
          wallet: creator.address,
          challenge: challenge.body.challenge,
          signature,
        })
      ).status,
    ).toBe(200);
    expect((await anonymous.get("/v1/auth/challenge?wallet=nope")).status).toBe(400);
    expect(
      (
        await anonymous.post("/v1/auth/token", {
          wallet: creator.address,
          challenge: "x",
          signature,
        })
      ).status,
    ).toBe(401);
    expect((await anonymous.get("/v1/listings")).status).toBe(401);

    // Where to pay.
    expect((await anonymous.get("/v1/marketplace")).body).toMatchObject({
      chain_id: 31337,
      contract_address: stack().deployment.address,
      paused: false,
      protocol_fee_basis_points: 250,
      network: "test",
    });
    expect((await anonymous.get("/v1/marketplace/abi")).status).toBe(200);
    // How current the projections are.
    expect((await anonymous.get("/v1/indexer")).body).toMatchObject({
      chain_head: expect.stringMatching(/^\d+$/),
      current: expect.any(Boolean),
    });

    // API keys.
    expect((await anonymous.get("/v1/api-keys/challenge")).status).toBe(401);
    const keyChallenge = await asCreator.get("/v1/api-keys/challenge");
    const label = "contract";
    const created = await asCreator.post("/v1/api-keys", {
      label,
      challenge: keyChallenge.body.challenge,
      signature: await creator.signMessage({ message: `${keyChallenge.body.challenge}:${label}` }),
    });
    expect(created.status).toBe(201);
    expect((await asCreator.post("/v1/api-keys", { label })).status).toBe(400);
    expect((await asCreator.get("/v1/api-keys")).status).toBe(200);
    const keyed = http(url, { send, bearer: created.body.key });
    expect((await keyed.get("/v1/api-keys")).status).toBe(403);
    expect((await asCreator.del(`/v1/api-keys/${created.body.id}`)).status).toBe(200);
    expect((await asCreator.del(`/v1/api-keys/${created.body.id}`)).status).toBe(404);
    expect((await keyed.get("/v1/listings")).status).toBe(401);

    // Listings.
    expect((await asRenter.get("/v1/listings?q=answers&limit=5")).status).toBe(200);
    expect((await asRenter.get("/v1/listings?limit=0")).status).toBe(400);
    expect((await asRenter.get(`/v1/listings/${id}`)).status).toBe(200);
    expect((await asRenter.get(`/v1/listings/${unknownListing}`)).status).toBe(404);
    expect(
      (await asCreator.put(`/v1/listings/${id}/execution-limit`, { requests_per_minute: 600 }))
        .status,
    ).toBe(200);
    expect(
      (await asRenter.put(`/v1/listings/${id}/execution-limit`, { requests_per_minute: 600 }))
        .status,
    ).toBe(403);

    // A valid credential, with its finality, before the runs below spend its balance.
    expect((await asRenter.get(`/v1/credentials/${id}`)).body.valid).toBe(true);

    // Execution, then what it leaves behind.
    const result = await asRenter.post("/v1/execute", { agent_id: id, task: behaving() });
    expect(result.status).toBe(200);
    expect((await stranger.post("/v1/execute", { agent_id: id, task: behaving() })).status).toBe(
      403,
    );
    expect((await asRenter.post("/v1/execute", { agent_id: "nope", task: "x" })).status).toBe(400);
    expect((await asRenter.get(`/v1/runs/${result.body.run_id}`)).status).toBe(200);
    expect((await asRenter.get(`/v1/runs/run_${"0".repeat(24)}`)).status).toBe(404);
    // Debited before it was answered: its receipt is final, anchored or not yet.
    expect((await asRenter.get(`/v1/runs/${result.body.run_id}/receipt`)).status).toBe(200);
    expect((await asRenter.get(`/v1/runs/run_${"0".repeat(24)}/receipt`)).status).toBe(404);
    expect((await asRenter.post("/v1/runs", { agent_id: id, task: behaving() })).status).toBe(202);
    expect((await asRenter.post("/v1/runs", { agent_id: "nope", task: "x" })).status).toBe(400);
    expect((await asRenter.get("/v1/runs?limit=5")).status).toBe(200);
    expect((await asRenter.get("/v1/runs?limit=0")).status).toBe(400);
    const stream = await send(`${url}/v1/execute/stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ agent_id: id, task: behaving() }),
    });
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await stream.text();
    const refusedStream = await send(`${url}/v1/execute/stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${renter.bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ agent_id: id, task: behaving() }),
    });
    expect(refusedStream.status).toBe(403);
    expect((await asRenter.get("/v1/tools/execute?format=anthropic")).status).toBe(200);
    expect((await asRenter.get("/v1/tools/execute?format=other")).status).toBe(400);
    expect((await asRenter.get("/v1/tools?format=anthropic")).status).toBe(200);
    expect((await asRenter.get("/v1/tools?format=other")).status).toBe(400);
    const mcpHeaders = { headers: { accept: "application/json, text/event-stream" } };
    const mcpList = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    expect((await asRenter.post("/mcp", mcpList, mcpHeaders)).status).toBe(200);
    expect((await anonymous.post("/mcp", mcpList, mcpHeaders)).status).toBe(401);
    const card = `/a2a/${id}/.well-known/agent-card.json`;
    expect((await anonymous.get(card)).status).toBe(200);
    expect((await anonymous.get(`/a2a/${unknownListing}/.well-known/agent-card.json`)).status).toBe(
      404,
    );
    const getTask = { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "run_none" } };
    expect((await asRenter.post(`/a2a/${id}`, getTask)).body.error.code).toBe(-32001);
    expect((await anonymous.post(`/a2a/${id}`, getTask)).status).toBe(401);

    // Webhook endpoints.
    const hook = await asRenter.post("/v1/webhooks", {
      url: "https://hooks.example.com/marketplace",
      events: ["run.completed", "credential.low_balance"],
    });
    expect(hook.status).toBe(201);
    expect((await asRenter.post("/v1/webhooks", { url: "http://hooks.example.com/" })).status).toBe(
      400,
    );
    expect((await asRenter.get("/v1/webhooks")).status).toBe(200);
    expect((await anonymous.get("/v1/webhooks")).status).toBe(401);
    expect((await asRenter.get(`/v1/webhooks/${hook.body.id}`)).status).toBe(200);
    expect((await stranger.get(`/v1/webhooks/${hook.body.id}`)).status).toBe(404);
    expect((await asRenter.get(`/v1/webhooks/${hook.body.id}/deliveries?limit=5`)).status).toBe(
      200,
    );
    expect((await asRenter.get(`/v1/webhooks/${hook.body.id}/deliveries?limit=0`)).status).toBe(
      400,
    );
    expect((await stranger.del(`/v1/webhooks/${hook.body.id}`)).status).toBe(404);
    expect((await asRenter.del(`/v1/webhooks/${hook.body.id}`)).status).toBe(200);

    // Credentials.
    expect((await asRenter.get("/v1/credentials")).status).toBe(200);
    expect((await asRenter.get("/v1/credentials?status=bogus")).status).toBe(400);
    expect((await asRenter.get(`/v1/credentials/${id}`)).body.status).toBe("low_balance");
    expect((await stranger.get(`/v1/credentials/${id}`)).body.status).toBe("not_found");
    expect((await asRenter.get("/v1/credentials/nope")).status).toBe(400);
    expect((await asRenter.get(`/v1/credentials/${unknownListing}`)).status).toBe(404);

    // The creator's own listings, once and as a stream.
    const mine = await asCreator.get("/v1/creators/me/listings");
    expect(mine.body.listings.map((row: { id: string }) => row.id)).toContain(id);
    expect((await anonymous.get("/v1/creators/me/listings")).status).toBe(401);
    expect((await asCreator.get("/v1/creators/me/runs?limit=5")).status).toBe(200);
    expect((await asCreator.get("/v1/creators/me/runs?status=bogus")).status).toBe(400);
    const events = await send(`${url}/v1/creators/me/listings/events`, {
      headers: { authorization: `Bearer ${creatorToken}` },
    });
    expect(events.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await events.body?.cancel();
    expect((await anonymous.get("/v1/creators/me/listings/events")).status).toBe(401);

    // Reviews: the renter completed runs above.
    const reviewsPath = `/v1/listings/${id}/reviews`;
    const review = await asRenter.post(reviewsPath, { rating: 4, text: "Did the task" });
    expect(review.status).toBe(200);
    expect((await stranger.post(reviewsPath, { rating: 4, text: "Never ran it" })).status).toBe(
      403,
    );
    expect((await asRenter.post(reviewsPath, { rating: 9, text: "x" })).status).toBe(400);
    expect(
      (await asRenter.post(`/v1/listings/${unknownListing}/reviews`, { rating: 4, text: "x" }))
        .status,
    ).toBe(404);
    expect((await asRenter.get(`${reviewsPath}?limit=5`)).status).toBe(200);
    expect((await asRenter.get("/v1/listings/nope/reviews")).status).toBe(400);
    const replyPath = `${reviewsPath}/${review.body.id}/reply`;
    expect((await asRenter.post(replyPath, { text: "Not mine" })).status).toBe(403);
    expect((await asCreator.post(replyPath, { text: "Thanks" })).status).toBe(200);
    expect((await asCreator.post(replyPath, { text: "Thanks again" })).status).toBe(409);
    expect(
      (await asCreator.post(`${reviewsPath}/rev_${"0".repeat(24)}/reply`, { text: "?" })).status,
    ).toBe(404);

    // Registration.
    const accepted = await asCreator.post("/v1/agents", declarativeManifest("contract-registered"));
    expect(accepted.status).toBe(202);
    expect((await asCreator.post("/v1/agents", "[1]")).status).toBe(400);
    const job = await until("the job to settle", async () => {
      const answer = await asCreator.get(`/v1/jobs/${accepted.body.job_id}`);
      return answer.body.status === "queued" ? undefined : answer;
    });
    expect(job.body.status).toBe("completed");
    const rejected = await asCreator.post("/v1/agents", { name: "Not Kebab" });
    await until("the rejection", async () => {
      const answer = await asCreator.get(`/v1/jobs/${rejected.body.job_id}`);
      return answer.body.status === "failed";
    });
    expect((await asCreator.get(`/v1/jobs/job_${"0".repeat(24)}`)).status).toBe(404);
    const cid = job.body.result.create_listing.metadata_uri.replace("ipfs://", "");
    expect((await asCreator.get(`/v1/manifests/${cid}`)).status).toBe(200);
    expect((await asCreator.get("/v1/manifests/nope")).status).toBe(404);
    expect((await anonymous.get(`/ipfs/${cid}`)).status).toBe(200);
    expect((await anonymous.get("/ipfs/nope")).status).toBe(404);

    // A new version of the registered agent, and the job that says how to make it current.
    const versions = `/v1/agents/${job.body.result.agent_id}/versions`;
    const newer = { ...declarativeManifest("contract-registered"), description: "Version two." };
    const version = await asCreator.post(versions, newer);
    expect(version.status).toBe(202);
    expect((await stranger.post(versions, newer)).status).toBe(403);
    expect((await asCreator.post("/v1/agents/nobody-00000000/versions", newer)).status).toBe(404);
    const versionJob = await until("the version's job to settle", async () => {
      const answer = await asCreator.get(`/v1/jobs/${version.body.job_id}`);
      return answer.body.status === "queued" ? undefined : answer;
    });
    expect(versionJob.body).toMatchObject({ status: "completed", result: { update_listing: {} } });

    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, { responses }]) => ({
        name: `${method} ${path}`,
        failsOnItsOwn: Object.keys(responses).some(
          (status) => status >= "400" && !ANY_REQUEST_STATUSES.includes(status),
        ),
      })),
    );
    expect([...seen.succeeded].sort()).toEqual(operations.map(({ name }) => name).sort());
    expect([...seen.failed].sort()).toEqual(
      operations
        .filter((operation) => operation.failsOnItsOwn)
        .map(({ name }) => name)
        .sort(),
    );
  });
});

describe("the API reference page", () => {
  let browser: Browser | undefined;
  afterAll(() => browser?.close());

  it("renders every operation in Chromium", async () => {
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${stack().api.url}/docs`);
    const operations = page.locator(".opblock");
    await operations.first().waitFor();
    const document = await fetchDocument();
    // The calls the service makes (the document's `webhooks`) are rendered as operations too.
    const described = [document.paths, document.webhooks].flatMap((section) =>
      Object.values(section).flatMap((methods) => Object.keys(methods)),
    );
    expect(await operations.count()).toBe(described.length);
    await expect(page.locator(".title").first().textContent()).resolves.toContain(
      "Agent rental marketplace API",
    );
    await page.screenshot({ path: screenshotPath(stack().dir, "api-reference.png") });
  });

  it("finding L-9: runs no script injected into the page, nor any from another origin", async () => {
    browser ??= await launchBrowser();
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") refused.push(message.text());
    });
    await page.goto(`${stack().api.url}/docs`);
    await page.locator(".opblock").first().waitFor();
    // What a hostile text rendered as HTML would do: an inline handler, an inline script, a script
    // from elsewhere.
    const ran = await page.evaluate(`(async () => {
      document.body.insertAdjacentHTML("beforeend", '<img src="data:," onload="window.handler=true">');
      const inline = document.createElement("script");
      inline.textContent = "window.inline = true";
      document.body.append(inline);
      const foreign = document.createElement("script");
      foreign.src = "http://127.0.0.1:9/steal.js";
      const settled = new Promise((resolve) => { foreign.onerror = resolve; foreign.onload = resolve; });
      document.body.append(foreign);
      await settled;
      await new Promise((resolve) => setTimeout(resolve, 100)); // the image's load handler's turn
      return { handler: window.handler === true, inline: window.inline === true };
    })()`);
    expect(ran).toEqual({ handler: false, inline: false });
    expect(refused.some((text) => text.includes("Content Security Policy"))).toBe(true);
    await page.close();
  });

  it("is served at /docs with its assets, without authentication", async () => {
    const page = await fetch(`${stack().api.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/docs/swagger-ui-bundle.js");
    const bundle = await fetch(`${stack().api.url}/docs/swagger-ui-bundle.js`);
    expect(bundle.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await fetch(`${stack().api.url}/docs/nope.js`)).status).toBe(404);
  });
});
