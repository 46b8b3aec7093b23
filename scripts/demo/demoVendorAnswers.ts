// What the vendor emulator answers the demo's declarative agent under `npm start`: the findings of
// auditSolidity.ts on the contract in the renter's input, instead of the emulator's placeholder.
import type { ChatRequest } from "../../devStack/vendorEmulator/chatRequest.ts";
import type { ScriptedContent } from "../../devStack/vendorEmulator/scriptedReply.ts";
import { auditSolidity } from "./auditSolidity.ts";
import { AUDITOR_SYSTEM_PROMPT } from "./demoAgents.ts";

/** The demo auditor's answer, recognised by its system prompt; undefined for any other agent. */
export function demoVendorAnswer(request: ChatRequest): ScriptedContent | undefined {
  if (!request.systemPrompt.startsWith(AUDITOR_SYSTEM_PROMPT)) return undefined;
  return { kind: "json", value: { findings: auditSolidity(sourceIn(request.lastUserText)) } };
}

/**
 * The user message holds the task, then the input between <input> and </input>
 * (workers/execution/declarative/promptLayout.ts): JSON with the `source`, or, read from an
 * `input_uri`, the source itself.
 */
function sourceIn(userText: string): string {
  const input = /<input>\n([\s\S]*)\n<\/input>$/.exec(userText)?.[1] ?? "";
  try {
    const parsed = JSON.parse(input) as { source?: unknown };
    return typeof parsed.source === "string" ? parsed.source : "";
  } catch {
    return input;
  }
}
