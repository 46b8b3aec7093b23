import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { z } from "zod/v4";
import { exactJson } from "../http/exactJson.ts";
import type { RawJson } from "../http/rawJson.ts";
import { requireScope } from "../middleware/requireScope.ts";
import type { AppEnv } from "../process/context.ts";
import type { Operation } from "./operation.ts";

/** An operation as its route declares it: the method and the path are the route's. */
export type Declaration = Omit<Operation, "method" | "path">;

/**
 * The answer's body a declaration's schema allows. Its numbers may be bigints, as exactJson writes
 * them, or raw JSON numbers written digit for digit.
 */
export type AnswerBody<D extends Declaration> = D["answer"] extends {
  schema: infer Schema extends z.ZodType;
}
  ? Wire<z.input<Schema>>
  : never;

type Wire<T> = T extends string
  ? string
  : T extends number
    ? number | bigint | RawJson
    : T extends readonly (infer Item)[]
      ? Wire<Item>[]
      : T extends object
        ? { [K in keyof T]: Wire<T[K]> }
        : T;

const JSON_TYPE = { "Content-Type": "application/json" };

/** The answers a route may give with its declared status, their bodies typed by its schema. */
export type Reply<D extends Declaration> = {
  /** The body as `c.json` writes it. */
  (c: Context<AppEnv, string>, body: AnswerBody<D>): Response;
  /** The body as exactJson writes it: wei as exact integers. */
  exact(c: Context<AppEnv, string>, body: AnswerBody<D>): Response;
  /** A body already written as JSON, from a read that builds it in SQL or caches it. */
  written(c: Context<AppEnv, string>, json: string | Uint8Array): Response;
};

export type DescribedHandler<D extends Declaration, P extends string = string> = (
  c: Context<AppEnv, P>,
  reply: Reply<D>,
) => Response | Promise<Response>;

type Handlers<D extends Declaration, P extends string> = [
  ...MiddlewareHandler<AppEnv>[],
  DescribedHandler<D, P>,
];

/**
 * Routes mounted at `prefix` that describe themselves: each `get`, `post`, `put` or `delete`
 * registers its handlers and records its operation for the OpenAPI document in one statement.
 * A `public` group is mounted before the API asks for an identity.
 */
export class DescribedRoutes {
  readonly routes = new Hono<AppEnv>();
  readonly operations: Operation[] = [];

  readonly prefix: string;
  readonly options: { public?: boolean };

  constructor(prefix: string, options: { public?: boolean } = {}) {
    this.prefix = prefix;
    this.options = options;
  }

  readonly get = this.method("get");
  readonly post = this.method("post");
  readonly put = this.method("put");
  readonly delete = this.method("delete");

  private method(method: Operation["method"]) {
    return <const P extends string, const D extends Declaration>(
      path: P,
      declaration: D,
      ...handlers: Handlers<D, P>
    ) => this.add(method, path, declaration, handlers);
  }

  private add<P extends string, D extends Declaration>(
    method: Operation["method"],
    path: P,
    declaration: D,
    handlers: Handlers<D, P>,
  ) {
    const fullPath = `${this.prefix}${path === "/" ? "" : path}`;
    this.operations.push({
      method,
      path: fullPath.replace(/:(\w+)/g, "{$1}"),
      ...declaration,
    });
    const middlewares = handlers.slice(0, -1) as MiddlewareHandler<AppEnv>[];
    if (declaration.scope) middlewares.push(requireScope(declaration.scope));
    const handler = handlers.at(-1) as DescribedHandler<D, P>;
    const reply = replyWith<D>(declaration.answer.status);
    this.routes.on(method.toUpperCase(), [path], ...middlewares, (c) =>
      handler(c as Context<AppEnv, P>, reply),
    );
  }
}

function replyWith<D extends Declaration>(status: number): Reply<D> {
  const code = status as 200;
  const reply = (c: Context<AppEnv, string>, body: AnswerBody<D>) => c.json(body as object, code);
  reply.exact = (c: Context<AppEnv, string>, body: AnswerBody<D>) =>
    c.body(exactJson(body as Record<string, unknown>), code, JSON_TYPE);
  reply.written = (c: Context<AppEnv, string>, json: string | Uint8Array) =>
    c.body(json as string, code, JSON_TYPE);
  return reply;
}
