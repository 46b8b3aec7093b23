// A steady open-loop load: one request every interval, each kind in turn, never waiting for an
// answer before sending the next (a stalled server cannot slow the load down), every answer kept.
import type { JsonResponse } from "./http.ts";

export type LoadAnswer<Kind extends string> = {
  kind: Kind;
  /** When it was sent and answered, in ms since the epoch. */
  sentAt: number;
  answeredAt: number;
  /** 0 when no HTTP answer came (the connection failed). */
  status: number;
  retryAfter: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: tests compare whole bodies against the spec
  body: any;
};

export function steadyLoad<Kind extends string>(
  requests: Record<Kind, () => Promise<JsonResponse>>,
  intervalMs: number,
) {
  const kinds = Object.keys(requests) as Kind[];
  const answers: Promise<LoadAnswer<Kind>>[] = [];
  const arrived: LoadAnswer<Kind>[] = [];
  let sent = 0;
  const send = () => {
    const kind = kinds[sent++ % kinds.length] as Kind;
    const sentAt = Date.now();
    answers.push(
      requests[kind]()
        .then(
          (response) => ({
            kind,
            sentAt,
            answeredAt: Date.now(),
            status: response.status,
            retryAfter: response.headers.get("retry-after"),
            body: response.body,
          }),
          (error: unknown) => ({
            kind,
            sentAt,
            answeredAt: Date.now(),
            status: 0,
            retryAfter: null,
            body: String(error),
          }),
        )
        .then((answer) => {
          arrived.push(answer);
          return answer;
        }),
    );
  };
  const timer = setInterval(send, intervalMs);
  return {
    /** The answers in so far, in the order they came. */
    answered: (): readonly LoadAnswer<Kind>[] => arrived,
    /** Stops sending; resolves with every answer once the last one is in. */
    stop: async () => {
      clearInterval(timer);
      return Promise.all(answers);
    },
  };
}
