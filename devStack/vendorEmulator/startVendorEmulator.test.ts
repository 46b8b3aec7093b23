// What the emulator does whichever protocol is called: routing, keys, bodies, scripts, stopping.
import { request as httpsRequest } from "node:https";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDevCertificates } from "../devCertificates.ts";
import { MAX_BODY_BYTES } from "./handleVendorRequest.ts";
import { startVendorEmulator, type VendorEmulator } from "./startVendorEmulator.ts";

const KEY = "sk-emulated";

let emulator: VendorEmulator;

beforeAll(async () => {
  emulator = await startVendorEmulator({ keys: [KEY] });
});
afterAll(() => emulator.stop());
beforeEach(() => {
  emulator.requests.length = 0;
});

const endpoints = () => ({
  openai: `${emulator.openaiBaseUrl}/chat/completions`,
  anthropic: `${emulator.anthropicBaseUrl}/v1/messages`,
  self_hosted: `${emulator.selfHostedBaseUrl}/chat/completions`,
});
const chat = (model: string, content = "Hi") => ({
  model,
  max_tokens: 64,
  messages: [{ role: "user", content }],
});
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
    body,
  });
/** Each vendor's error shape, with the fields every client reads. */
const vendorError = {
  openai: { error: { message: expect.any(String), type: expect.any(String) } },
  anthropic: { type: "error", error: { type: expect.any(String), message: expect.any(String) } },
  self_hosted: { error: { message: expect.any(String), type: expect.any(String) } },
};
const protocols = ["openai", "anthropic", "self_hosted"] as const;

describe("requests it refuses, in the vendor's shape", () => {
  it.each(protocols)("%s: malformed JSON is a 400", async (protocol) => {
    const response = await post(endpoints()[protocol], '{"model": "m", "messages": [');

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject(vendorError[protocol]);
    expect(emulator.requests[0]).toMatchObject({ protocol, body: undefined });
  });

  it.each(protocols)(
    "%s: a body over 4 MB is a 413, and the next request is served",
    async (protocol) => {
      const huge = JSON.stringify(chat("m", "x".repeat(MAX_BODY_BYTES)));

      const refused = await post(endpoints()[protocol], huge);
      expect(refused.status).toBe(413);
      expect(await refused.json()).toMatchObject(vendorError[protocol]);

      const served = await post(endpoints()[protocol], JSON.stringify(chat("m")));
      expect(served.status).toBe(200);
    },
  );

  it.each(protocols)("%s: a body that is not a chat request is a 400", async (protocol) => {
    const response = await post(endpoints()[protocol], JSON.stringify({ model: "m" }));

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject(vendorError[protocol]);
  });

  it("answers an unknown path 404 and another method 405", async () => {
    const unknown = await post(`${emulator.openaiBaseUrl}/embeddings`, "{}");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject(vendorError.openai);

    const wrongMethod = await fetch(endpoints().anthropic, { headers: { "x-api-key": KEY } });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toMatchObject(vendorError.anthropic);
  });

  it("accepts any non-empty key when it was given no list of keys", async () => {
    const open = await startVendorEmulator();
    try {
      const anyKey = await fetch(`${open.openaiBaseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer whatever" },
        body: JSON.stringify(chat("m")),
      });
      expect(anyKey.status).toBe(200);

      const noKey = await fetch(`${open.openaiBaseUrl}/chat/completions`, {
        method: "POST",
        body: JSON.stringify(chat("m")),
      });
      expect(noKey.status).toBe(401);
    } finally {
      await open.stop();
    }
  });
});

describe("scripts", () => {
  it("are consumed in order for their model only, then the default answer returns", async () => {
    emulator.script("scripted", [{ kind: "text", text: "first" }]);
    emulator.script("scripted", [{ kind: "text", text: "second" }]);
    const answer = async (model: string) => {
      const response = await post(endpoints().openai, JSON.stringify(chat(model, "again")));
      const body = (await response.json()) as { choices: { message: { content: string } }[] };
      return body.choices[0]?.message.content;
    };

    expect(await answer("other")).toBe("Done: again");
    expect(await answer("scripted")).toBe("first");
    expect(await answer("scripted")).toBe("second");
    expect(await answer("scripted")).toBe("Done: again");
  });

  it("come before the emulator's own answer, which replaces the default where it gives one", async () => {
    const answering = await startVendorEmulator({
      answer: ({ lastUserText }) =>
        lastUserText === "ping" ? { kind: "text", text: "pong" } : undefined,
    });
    try {
      answering.script("m", [{ kind: "text", text: "scripted" }]);
      const answer = async (content: string) => {
        const response = await fetch(`${answering.openaiBaseUrl}/chat/completions`, {
          method: "POST",
          headers: { authorization: "Bearer whatever" },
          body: JSON.stringify(chat("m", content)),
        });
        const body = (await response.json()) as { choices: { message: { content: string } }[] };
        return body.choices[0]?.message.content;
      };

      expect(await answer("ping")).toBe("scripted");
      expect(await answer("ping")).toBe("pong");
      expect(await answer("hello")).toBe("Done: hello");
    } finally {
      await answering.stop();
    }
  });

  it("quote at most 200 characters of the user's message by default", async () => {
    const response = await post(endpoints().openai, JSON.stringify(chat("m", "y".repeat(500))));
    const body = (await response.json()) as { choices: { message: { content: string } }[] };

    expect(body.choices[0]?.message.content).toBe(`Done: ${"y".repeat(200)}`);
  });
});

describe("lifecycle", () => {
  it("stops, closing a request that hangs", async () => {
    const own = await startVendorEmulator();
    own.script("m", [{ kind: "hang" }]);
    const hanging = fetch(`${own.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k" },
      body: JSON.stringify(chat("m")),
    }).catch((error: unknown) => error);
    await expect.poll(() => own.requests.length).toBe(1);

    const started = performance.now();
    await own.stop();

    expect(performance.now() - started).toBeLessThan(1000);
    expect(await hanging).toBeInstanceOf(Error);
  });

  it("speaks HTTPS with the certificate it is given", async () => {
    const certificates = createDevCertificates();
    const secure = await startVendorEmulator({
      tls: { key: certificates.serverKey, cert: certificates.serverCertificate },
    });
    try {
      expect(secure.openaiBaseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/openai\/v1$/);
      const { status, body } = await new Promise<{ status: number; body: string }>(
        (resolve, reject) => {
          const request = httpsRequest(
            `${secure.selfHostedBaseUrl}/chat/completions`,
            { method: "POST", ca: certificates.caCertificate },
            (response) => {
              let body = "";
              response.setEncoding("utf8");
              response.on("data", (piece) => {
                body += piece;
              });
              response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
            },
          );
          request.on("error", reject);
          request.end(JSON.stringify(chat("m")));
        },
      );

      expect(status).toBe(200);
      expect(JSON.parse(body).choices[0].message.content).toBe("Done: Hi");
    } finally {
      await secure.stop();
    }
  });
});
