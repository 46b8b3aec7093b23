// Reads a Server-Sent Events response item by item, as a client does: events with their JSON data,
// and comment lines (heartbeats), in the order they came.

export type SseItem = { event: string; data: string } | { comment: string };

/** The next items of `response`'s `text/event-stream` body; `undefined` once it ends. */
export function sseReader(response: Response) {
  if (!response.body) throw new Error("the response has no body");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const items: SseItem[] = [];

  function parse(block: string): SseItem[] {
    const comments: SseItem[] = [];
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comments.push({ comment: line.slice(1).trim() });
      else if (line.startsWith("event: ")) event = line.slice("event: ".length);
      else if (line.startsWith("data: ")) data.push(line.slice("data: ".length));
      else throw new Error(`not an SSE line: ${JSON.stringify(line)}`);
    }
    return data.length > 0 ? [...comments, { event, data: data.join("\n") }] : comments;
  }

  async function next(): Promise<SseItem | undefined> {
    while (items.length === 0) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        items.push(...parse(buffer.slice(0, end)));
        buffer = buffer.slice(end + 2);
        continue;
      }
      const { done, value } = await reader.read();
      if (done) {
        if (buffer.trim() !== "") throw new Error(`the stream ended mid-event: ${buffer}`);
        return undefined;
      }
      buffer += value;
    }
    return items.shift();
  }

  /** The next event, past any heartbeat before it (a busy machine may send one first). */
  async function nextEvent(): Promise<SseItem | undefined> {
    let item = await next();
    while (item && "comment" in item) item = await next();
    return item;
  }

  /** Every item left, until the stream ends. */
  async function rest(): Promise<SseItem[]> {
    const all: SseItem[] = [];
    for (let item = await next(); item; item = await next()) all.push(item);
    return all;
  }

  return { next, nextEvent, rest, cancel: () => reader.cancel() };
}

/** The events of `items` (comments dropped), their data parsed. */
export function eventsOf(items: SseItem[]) {
  return items.flatMap((item) =>
    "event" in item ? [{ event: item.event, data: JSON.parse(item.data) }] : [],
  );
}
