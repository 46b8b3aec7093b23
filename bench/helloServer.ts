// The ceiling of bench/apiThroughput.ts: a plain Hono hello-world on @hono/node-server, the same
// framework and server as the API with no middleware, database or chain. Serves on 127.0.0.1:$PORT.
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const app = new Hono().get("/", (c) => c.text("hello"));
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
