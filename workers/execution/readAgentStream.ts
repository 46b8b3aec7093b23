import { createParser } from "eventsource-parser";
import { AgentProtocolError } from "./agentProtocolError.ts";

/**
 * Reads a connected agent's `text/event-stream` answer: each event's data is JSON, `{"delta": "..."}`
 * for output as it is produced (handed to `onDelta` in order) or `{"output": ...}` for the final
 * output, which ends the answer. A stream that ends without one answers its deltas, concatenated.
 */
export async function readAgentStream(
  body: AsyncIterable<Buffer>,
  onDelta: (delta: string) => void,
): Promise<{ output: unknown }> {
  let final: { output: unknown } | undefined;
  let violation: AgentProtocolError | undefined;
  const deltas: string[] = [];
  const parser = createParser({
    onEvent: ({ data }) => {
      if (final || violation) return;
      const event = parseEvent(data);
      if (event instanceof AgentProtocolError) violation = event;
      else if ("output" in event) final = { output: event.output };
      else {
        deltas.push(event.delta);
        onDelta(event.delta);
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (violation) throw violation;
    // Leaving the loop closes the connection: nothing after the output is read.
    if (final) return final;
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  if (violation) throw violation;
  return final ?? { output: deltas.join("") };
}

function parseEvent(data: string): { delta: string } | { output: unknown } | AgentProtocolError {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    return new AgentProtocolError("the agent sent an event whose data is not JSON");
  }
  if (event && typeof event === "object" && !Array.isArray(event)) {
    if ("output" in event) return { output: event.output };
    if ("delta" in event && typeof event.delta === "string") return { delta: event.delta };
  }
  return new AgentProtocolError("the agent sent an event that is neither a delta nor an output");
}
