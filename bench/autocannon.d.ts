// The part of autocannon 9's programmatic API the benchmarks use (it ships no types); see its README.
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export type Request = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before each request is sent; returns the request to send. */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  };

  export type Options = {
    url: string;
    /** Concurrent keep-alive connections, each sending its next request when answered. */
    connections?: number;
    /** Seconds to run, unless `amount` is given. */
    duration?: number;
    /** Requests to make in all, spread over the connections. */
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Request[];
    /** Seconds to wait for an answer before counting a timeout. */
    timeout?: number;
  };

  export type Result = {
    /** Seconds from start to the sample tick that ended the run. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  };

  /**
   * Emits `response` (client, statusCode, bytes, responseTime in ms from writing the request to the
   * end of the response) and `reqError` (error); resolves with the run's result.
   */
  export type Instance = EventEmitter & PromiseLike<Result> & { stop: () => void };

  export default function autocannon(options: Options): Instance;
}
