import { Ajv, type ValidateFunction } from "ajv";
import { runToolCalls, type ToolCallOutcome } from "../../../../lib/db/appSchema.ts";
import type { Database } from "../../../../lib/db/projections.ts";
import type { ToolScope } from "../../../../lib/manifest/manifestShape.ts";
import { isToolName, TOOL_CATALOG, type ToolName } from "../../../../lib/manifest/toolCatalog.ts";
import type { Lookup } from "../../outbound/guardedRequest.ts";
import { OutboundFailure, OutboundRefusal } from "../../outbound/outboundFailure.ts";
import type { OutboundPolicy } from "../../outbound/outboundPolicy.ts";
import type { ToolDefinition } from "../chatModel.ts";
import { type BuiltInTool, ToolFailure, ToolRefusal } from "./builtInTool.ts";
import { BUILT_IN_TOOLS } from "./builtInTools.ts";
import { outboundAllowance } from "./outboundAllowance.ts";
import { type RunInput, runInputOf } from "./runInput.ts";
import { pageOf } from "./textPages.ts";
import { type ToolContextOptions, toolContext } from "./toolContext.ts";

export type ToolLimits = {
  /** Tool calls per run, refused ones included. */
  maxSteps: number;
  /** The most the model reads back from one call, in UTF-8 bytes. */
  maxResultBytes: number;
  /** What a run's tools may read from outside in all, in bytes of response bodies. */
  maxOutboundBytes: number;
};

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxSteps: 20,
  maxResultBytes: 16 * 1024,
  maxOutboundBytes: 2 * 1024 * 1024,
};

export type Toolbox = {
  /** Only the manifest's tools, for the vendor request. */
  definitions: ToolDefinition[];
  /**
   * Runs one call the model asked for; never throws; returns what the model reads back (a refusal
   * or failure is text the model reads: "refused: …", "failed: …").
   */
  call: (name: string, rawArguments: string) => Promise<string>;
};

export type ToolboxOptions = {
  /** The manifest's tools. */
  tools: { name: string; scope: ToolScope }[];
  /** The manifest's `tool_domains`: where `read_only` tools may send query strings of the model's. */
  toolDomains?: readonly string[];
  run: {
    runId: string;
    /** The renter's task, which the model was given with the input. */
    task?: string;
    input?: string | Record<string, unknown>;
    /** The content of `input_uri` when the run has one (`readInputUri`). */
    inputText?: string;
  };
  policy: OutboundPolicy;
  /** Where `repo_scoped` tools read files (TOOL_REPOSITORY_BASE_URL); raw.githubusercontent.com. */
  repositoryBaseUrl?: string;
  db: Database;
  /** The run's: once it aborts, calls under way fail and later ones are refused. */
  signal: AbortSignal;
  limits?: Partial<ToolLimits>;
  /** Resolves names for outbound calls; `dns.lookup` unless a test answers for it. */
  lookup?: Lookup;
};

/** Arguments longer than this are refused unread: no parameter of any tool needs more. */
const MAX_ARGUMENT_BYTES = 16 * 1024;
const MAX_REASON_LENGTH = 200;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

type Answer = { outcome: ToolCallOutcome; text: string; reason?: string };

/**
 * The tools of one run of a declarative agent: those its manifest names, each given only what its
 * scope allows (builtInTool.ts), within the run's limits. Every call is recorded in
 * `app.run_tool_calls`, refused ones too, with its size and outcome but never its arguments or what
 * the tool read; nothing a tool reads is logged.
 */
export function openToolbox(options: ToolboxOptions): Toolbox {
  const limits = { ...DEFAULT_TOOL_LIMITS, ...options.limits };
  const offered = new Map<ToolName, ToolScope>();
  for (const { name, scope } of options.tools) {
    if (isToolName(name) && TOOL_CATALOG[name].scope === scope) offered.set(name, scope);
  }
  const allowance = outboundAllowance(limits.maxOutboundBytes);
  let input: RunInput | undefined;
  const inputOf = () => {
    input ??= runInputOf(options.run);
    return input;
  };
  // What the model was given to read: a URL's query string found in it is not the model's own.
  const given: string[] = [];
  const wasRead = (text: string) =>
    [options.run.task ?? "", inputOf().text, ...given].some((read) => read.includes(text));
  const contextOptions: ToolContextOptions = {
    input: inputOf,
    toolDomains: options.toolDomains ?? [],
    wasRead,
    policy: options.policy,
    ...(options.lookup && { lookup: options.lookup }),
    signal: options.signal,
    allowance,
    ...(options.repositoryBaseUrl && { repositoryBaseUrl: options.repositoryBaseUrl }),
    maxResultBytes: limits.maxResultBytes,
  };
  let calls = 0;

  async function perform(
    name: string,
    rawArguments: string,
    sequence: number,
    onRead: (bytes: number) => void,
  ): Promise<string> {
    if (sequence > limits.maxSteps) {
      throw new ToolRefusal(`the run has made the ${limits.maxSteps} tool calls it may make`);
    }
    if (options.signal.aborted) throw new ToolRefusal("the run's deadline has passed");
    if (!isToolName(name) || !offered.has(name)) {
      const names = [...offered.keys()].join(", ") || "none";
      throw new ToolRefusal(`the agent has no tool of that name; its tools are: ${names}`);
    }
    if (Buffer.byteLength(rawArguments) > MAX_ARGUMENT_BYTES) {
      throw new ToolRefusal(`the arguments are larger than ${MAX_ARGUMENT_BYTES / 1024} KB`);
    }
    const args = parsedArguments(rawArguments);
    const validate = validatorOf(name);
    if (!validate(args)) {
      const problems = argumentValidator.errorsText(validate.errors, { dataVar: "arguments" });
      throw new ToolRefusal(`the arguments do not fit the tool's parameters: ${problems}`);
    }
    const tool = BUILT_IN_TOOLS[name] as BuiltInTool<ToolScope>;
    return tool.run(args, toolContext(tool.scope, contextOptions, onRead));
  }

  return {
    definitions: [...offered.keys()].map((name) => ({
      name,
      description: TOOL_CATALOG[name].description,
      parameters: BUILT_IN_TOOLS[name].parameters,
    })),
    call: async (name, rawArguments) => {
      const sequence = ++calls;
      const calledAt = new Date();
      const started = performance.now();
      let outboundBytes = 0;
      const answer = await answerOf(
        perform(name, rawArguments, sequence, (bytes) => {
          outboundBytes += bytes;
        }),
      );
      const text = capped(answer.text, limits.maxResultBytes);
      try {
        await options.db.insert(runToolCalls).values({
          runId: options.run.runId,
          sequence,
          tool: TOOL_NAME.test(name) ? name : "(invalid name)",
          scope: isToolName(name) ? (offered.get(name) ?? null) : null,
          outcome: answer.outcome,
          reason: answer.reason ?? null,
          argumentBytes: Buffer.byteLength(rawArguments),
          resultBytes: Buffer.byteLength(text),
          outboundBytes,
          durationMs: Math.round(performance.now() - started),
          calledAt,
        });
      } catch {
        return "failed: the call could not be recorded, so what it read is withheld";
      }
      given.push(text);
      return text;
    },
  };
}

/** The call's answer, its refusal or its failure, as the model reads it and the record keeps it. */
async function answerOf(performing: Promise<string>): Promise<Answer> {
  try {
    return { outcome: "ok", text: await performing };
  } catch (error) {
    if (error instanceof ToolRefusal || error instanceof OutboundRefusal) {
      return ended("refused", error.message);
    }
    if (error instanceof ToolFailure || error instanceof OutboundFailure) {
      return ended("failed", error.message);
    }
    return ended("failed", "the tool failed unexpectedly");
  }
}

function ended(outcome: "refused" | "failed", reason: string): Answer {
  return { outcome, text: `${outcome}: ${reason}`, reason: reason.slice(0, MAX_REASON_LENGTH) };
}

/** The arguments as an object; none at all (some models send "") are no arguments. */
function parsedArguments(rawArguments: string): unknown {
  if (rawArguments.trim() === "") return {};
  try {
    return JSON.parse(rawArguments);
  } catch {
    throw new ToolRefusal("the arguments are not JSON");
  }
}

const argumentValidator = new Ajv({ allErrors: false, strict: true });
const validators = new Map<ToolName, ValidateFunction<Record<string, unknown>>>();

function validatorOf(name: ToolName): ValidateFunction<Record<string, unknown>> {
  let validate = validators.get(name);
  if (!validate) {
    validate = argumentValidator.compile<Record<string, unknown>>(BUILT_IN_TOOLS[name].parameters);
    validators.set(name, validate);
  }
  return validate;
}

/** `text` cut to `maxBytes` of UTF-8, saying so; tools keep within it, this is the backstop. */
function capped(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const note = "\n[cut: the answer was longer than a call may return]";
  return pageOf(text, 0, maxBytes - Buffer.byteLength(note)).page + note;
}
