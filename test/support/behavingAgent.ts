// A connected agent for fault tests: a real HTTPS server (certificate from the stack's dev CA) whose
// answer to each run is what the run's task describes, the way the scripted agent's task drives an
// in-process runtime. It checks every call's signature and counts the calls of each run.
import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import type { DevCertificates } from "../../devStack/devCertificates.ts";
import { startHttpsTestServer } from "./httpsTestServer.ts";

/** How the agent answers a run, in this order: wait, then one way to answer. */
export type AgentBehaviour = {
  /** Waits, before anything else, until the test releases the hold of this name (`release`). */
  hold?: string;
  /** Waits this long before answering. */
  delayMs?: number;
  /** Never answers: holds the connection until the caller leaves. */
  hang?: boolean;
  /** Drops the connection without a byte of answer, as an agent that cannot be reached. */
  reset?: boolean;
  /** Answers this HTTP status, with a JSON error body. */
  status?: number;
  /** Streams these deltas as an event stream, `deltaGapMs` apart, then `output` (if any). */
  deltas?: string[];
  deltaGapMs?: number;
  /** The output (by default `{ summary: "done" }`). */
  output?: unknown;
  /** Answers a JSON body of this many bytes, as fast as the caller takes it. */
  bytes?: number;
  /** Streams deltas of 64 KB until this many bytes, as fast as the caller takes them. */
  streamedBytes?: number;
  /** Streams the run's input back as one delta of JSON, then `{ summary: "done" }`. */
  echoInput?: boolean;
};

/** The output schema of the behaving agent's listings; `{ summary: "done" }` matches it. */
export const SUMMARY_SCHEMA = {
  type: "object",
  properties: { summary: { type: "string" } },
  required: ["summary"],
};

/** A run's task that has the behaving agent answer as `behaviour` says. */
export const behaving = (behaviour: AgentBehaviour = {}): string => JSON.stringify(behaviour);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type BehavingAgent = Awaited<ReturnType<typeof startBehavingAgent>>;

export async function startBehavingAgent(certificates: DevCertificates) {
  const secrets: string[] = [];
  const calls = new Map<string, number>();
  const holds = new Map<string, Hold>();
  const holdNamed = (name: string) => {
    const hold = holds.get(name) ?? newHold();
    holds.set(name, hold);
    return hold;
  };
  const server = await startHttpsTestServer(certificates, async (request, response) => {
    response.on("error", () => {});
    const headers = request.headers as Record<string, string>;
    if (!secrets.some((secret) => verifies(secret, request.body, headers))) {
      response.writeHead(401).end();
      return;
    }
    const runId = headers["webhook-id"] as string;
    calls.set(runId, (calls.get(runId) ?? 0) + 1);
    const run = JSON.parse(request.body) as { task: string; input?: unknown };
    const behaviour = JSON.parse(run.task) as AgentBehaviour;
    if (behaviour.echoInput) {
      behaviour.deltas = [JSON.stringify(run.input ?? null)];
      behaviour.output ??= { summary: "done" };
    }
    if (behaviour.hold !== undefined) await holdNamed(behaviour.hold).wait();
    await answer(behaviour, response);
  });
  return {
    url: server.url,
    close: server.close,
    /** Accepts calls signed with `secret` (a registration's `webhook_secret`). */
    trust: (secret: string) => secrets.push(secret),
    /** How many times the run's webhook was called. */
    callsOf: (runId: string) => calls.get(runId) ?? 0,
    /** Resolves once a call waits at the hold `name`. */
    held: (name: string) => holdNamed(name).reached,
    /** Lets the calls waiting at the hold `name`, and any to come, go on. */
    release: (name: string) => holdNamed(name).release(),
  };
}

type Hold = ReturnType<typeof newHold>;

/** A point calls wait at: `reached` once one does, until `release()`. */
function newHold() {
  let reach = () => {};
  let release = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    reached,
    release,
    wait: () => {
      reach();
      return released;
    },
  };
}

function verifies(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

async function answer(behaviour: AgentBehaviour, response: ServerResponse) {
  if (behaviour.hang) return;
  if (behaviour.reset) {
    response.socket?.destroy();
    return;
  }
  await sleep(behaviour.delayMs ?? 0);
  const output = behaviour.output ?? { summary: "done" };
  if (behaviour.status) {
    response.writeHead(behaviour.status, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: "the agent failed" }));
  } else if (behaviour.bytes) {
    response.writeHead(200, { "content-type": "application/json" });
    await writeLarge(response, behaviour.bytes, '{"output":{"summary":"', '"}}');
  } else if (behaviour.streamedBytes) {
    response.writeHead(200, { "content-type": "text/event-stream" });
    await writeLarge(response, behaviour.streamedBytes, "", "", (piece) => {
      return `data: ${JSON.stringify({ delta: piece })}\n\n`;
    });
  } else if (behaviour.deltas) {
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const delta of behaviour.deltas) {
      response.write(`data: ${JSON.stringify({ delta })}\n\n`);
      await sleep(behaviour.deltaGapMs ?? 0);
    }
    response.end(
      behaviour.output === undefined ? "" : `data: ${JSON.stringify({ output: output })}\n\n`,
    );
  } else {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ output }));
  }
}

/**
 * `head`, `x`s and `tail`, `bytes` of text in all (each piece of `x`s as `frame` writes it), written
 * as the caller reads it, until it leaves.
 */
async function writeLarge(
  response: ServerResponse,
  bytes: number,
  head: string,
  tail: string,
  frame: (piece: string) => string = (piece) => piece,
) {
  response.write(head);
  const chunk = "x".repeat(64 * 1024);
  let left = bytes - head.length - tail.length;
  while (left > 0 && !response.destroyed) {
    const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
    left -= piece.length;
    if (!response.write(frame(piece))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off("drain", done).off("close", done);
          resolve();
        };
        response.on("drain", done).on("close", done);
      });
    }
  }
  if (!response.destroyed) response.end(tail);
}
