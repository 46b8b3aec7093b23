import { request } from "node:http";
import type { JsonResponse } from "./http.ts";

/** How long to wait for an answer to the headers alone before sending the body after all. */
const HEADERS_ANSWER_MS = 5_000;

/**
 * POSTs `body` on a connection of its own, announcing its length first and sending it only if the
 * server has not answered within a few seconds. A server that refuses an oversized body from its
 * Content-Length answers before a byte of it is sent, so the answer is read without racing the
 * server's hang-up against the upload (which would surface as EPIPE).
 */
export function postOversized(
  url: string,
  body: string,
  { bearer }: { bearer: string },
): Promise<Pick<JsonResponse, "status" | "body">> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = request(
      url,
      {
        method: "POST",
        agent: false,
        headers: {
          authorization: `Bearer ${bearer}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        answered = true;
        clearTimeout(sendBody);
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
          outgoing.destroy();
        });
        response.on("error", reject);
      },
    );
    // Once answered, the server hanging up on the rest of the upload is expected.
    outgoing.on("error", (error) => {
      if (!answered) reject(error);
    });
    outgoing.flushHeaders();
    const sendBody = setTimeout(() => outgoing.end(body), HEADERS_ANSWER_MS);
  });
}
