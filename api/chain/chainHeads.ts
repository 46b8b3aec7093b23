import type { Logger } from "../../lib/log.ts";
import { CHAIN_HEAD_ALIVE_MS, CHAIN_HEAD_PING_MS, CHAIN_HEAD_RECONNECT_MS } from "../limits.ts";

/** A block of the chain: its number and its time, the clock credential statuses are judged at. */
export type ChainTime = { number: bigint; timestamp: bigint };

export type ChainHeads = {
  /** The newest block the node has announced, while it is known to be answering; else undefined. */
  latest: () => ChainTime | undefined;
  close: () => void;
};

type Message = {
  id?: string;
  result?: unknown;
  method?: string;
  params?: { subscription?: unknown; result?: unknown };
};

/**
 * The chain's newest block as the node announces it (`eth_subscribe` `newHeads` over a WebSocket),
 * so a request needs no read of its own to learn the latest block. The node is asked for its latest
 * block every `CHAIN_HEAD_PING_MS` on the same socket: an answer keeps the head trusted for
 * `CHAIN_HEAD_ALIVE_MS` and replaces a head a lost announcement left behind. With no subscription,
 * or a node silent past that, `latest()` is undefined and callers read the chain themselves; a
 * closed socket is opened again after `CHAIN_HEAD_RECONNECT_MS`.
 */
export function watchChainHeads(url: string, log: Logger): ChainHeads {
  let socket: WebSocket | undefined;
  let subscription: unknown;
  let head: ChainTime | undefined;
  let aliveUntil = 0;
  let closed = false;
  let warned = false;
  let reconnect: NodeJS.Timeout | undefined;

  const send = (id: string, method: string, params: unknown[]) =>
    socket?.readyState === WebSocket.OPEN &&
    socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  const askLatest = () => send("latest", "eth_getBlockByNumber", ["latest", false]);

  function onMessage(text: string) {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (message.id === "subscribe" && message.result !== undefined) {
      subscription = message.result;
      askLatest();
    } else if (message.id === "latest") {
      const block = chainTime(message.result);
      if (!block) return;
      aliveUntil = performance.now() + CHAIN_HEAD_ALIVE_MS;
      // An announcement may have overtaken this answer on its way.
      if (!head || block.number >= head.number) head = block;
    } else if (message.method === "eth_subscription") {
      if (message.params?.subscription !== subscription) return;
      const block = chainTime(message.params?.result);
      if (block) head = block;
    }
  }

  function connect() {
    const opened = new WebSocket(url);
    socket = opened;
    opened.onopen = () => {
      warned = false;
      send("subscribe", "eth_subscribe", ["newHeads"]);
    };
    opened.onmessage = (event) => onMessage(String(event.data));
    opened.onclose = () => {
      if (socket !== opened) return;
      socket = undefined;
      subscription = undefined;
      head = undefined;
      if (closed) return;
      // The host alone: a provider's URL carries its key in the path or the user part.
      if (!warned) {
        log.warn("chain heads unavailable; each request reads the latest block", {
          host: new URL(url).host,
        });
      }
      warned = true;
      reconnect = setTimeout(connect, CHAIN_HEAD_RECONNECT_MS).unref();
    };
  }

  const ping = setInterval(askLatest, CHAIN_HEAD_PING_MS).unref();
  connect();

  return {
    latest: () => (subscription !== undefined && performance.now() < aliveUntil ? head : undefined),
    close() {
      closed = true;
      clearInterval(ping);
      clearTimeout(reconnect);
      socket?.close();
    },
  };
}

/** A block header's number and time, from the node's hex; undefined if it is not one. */
export function chainTime(block: unknown): ChainTime | undefined {
  const { number, timestamp } = (block ?? {}) as { number?: unknown; timestamp?: unknown };
  if (typeof number !== "string" || typeof timestamp !== "string") return undefined;
  try {
    return { number: BigInt(number), timestamp: BigInt(timestamp) };
  } catch {
    return undefined;
  }
}

/** The WebSocket twin of a JSON-RPC URL: the same host and path, `ws:` for `http:`, `wss:` for `https:`. */
export function webSocketUrlOf(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}
