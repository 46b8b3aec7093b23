import { z } from "zod/v4";
import { MAX_TIMEOUT_SECONDS } from "../../lib/manifest/manifestShape.ts";
import { depthLimitViolation } from "../../lib/manifest/schemaLimits.ts";
import {
  describeBytes,
  MAX_INPUT_BYTES,
  MAX_INPUT_DEPTH,
  MAX_INPUT_URI_LENGTH,
  MAX_TASK_BYTES,
} from "../limits.ts";

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text Postgres can store: no U+0000, no unpaired surrogate. */
function isStorable(text: string): boolean {
  return !text.includes("\u0000") && !UNPAIRED_SURROGATE.test(text);
}

/** True when every key and string in `value` is storable; iterative, for any depth. */
function holdsStorableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string" && !isStorable(item)) return false;
    if (item === null || typeof item !== "object") continue;
    for (const [key, child] of Object.entries(item)) {
      if (!isStorable(key)) return false;
      pending.push(child);
    }
  }
  return true;
}

const storableText = "must not contain U+0000 or an unpaired surrogate";

const task = z
  .string()
  .min(1, "must not be empty")
  .refine((text) => Buffer.byteLength(text) <= MAX_TASK_BYTES, {
    message: `must be at most ${describeBytes(MAX_TASK_BYTES)}`,
  })
  .refine(isStorable, storableText);

const input = z
  .union([z.string(), z.record(z.string(), z.unknown())], "must be a string or an object")
  // Depth first: everything after walks or serialises the value.
  .refine((value) => depthLimitViolation(value) === undefined, {
    message: `must nest at most ${MAX_INPUT_DEPTH} levels deep`,
    abort: true,
  })
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_INPUT_BYTES, {
    message: `must be at most ${describeBytes(MAX_INPUT_BYTES)} as JSON`,
  })
  .refine(holdsStorableText, storableText);

/** `ipfs://<cid>[/path]` or an `https://` URL with a host; nothing the service fetches on its own. */
function isInputUri(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === "https:") return url.hostname !== "";
  return url.protocol === "ipfs:" && /^ipfs:\/\/[A-Za-z0-9]+(\/[^\s]*)?$/.test(text);
}

const inputUri = z
  .string()
  .max(MAX_INPUT_URI_LENGTH)
  .refine(isInputUri, "must be an ipfs:// or https:// URI");

/** Wei as a decimal string (any size) or a JSON integer (up to 2^53 − 1, as JSON numbers are read). */
const wei = z
  .union([z.string().regex(/^\d{1,78}$/, "must be a decimal string of wei"), z.int().min(0)])
  .transform((value) => BigInt(value));

/** The body of `POST /v1/execute` and `/v1/execute/stream`; unknown fields are refused. */
export const executeBody = z
  .strictObject({
    agent_id: z.string().min(1).max(200),
    task,
    input: input.optional(),
    input_uri: inputUri.optional(),
    priority: z.enum(["standard", "priority"]).default("standard"),
    timeout_seconds: z.number().int().min(1).max(MAX_TIMEOUT_SECONDS).optional(),
    max_cost_wei: wei
      .optional()
      .describe(
        "The most this run may cost, in wei: a run whose price is higher is refused, 403 `max_cost_exceeded`",
      ),
  })
  .refine((body) => body.input === undefined || body.input_uri === undefined, {
    message: "give input or input_uri, not both",
    path: ["input_uri"],
  });

export type ExecuteBody = z.output<typeof executeBody>;
