import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DescribedRoutes } from "../openapi/describedRoutes.ts";
import { openApiDocument } from "../openapi/openApiDocument.ts";

/** The API's description and its interactive reference (Swagger UI), open to anyone. */
export const apiDocRoutes = new DescribedRoutes("/", { public: true });

const swaggerUi = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Agent rental marketplace</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<main id="reference"></main>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/reference.js"></script>
</body>
</html>
`;

const START = `SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  tryItOutEnabled: true,
  persistAuthorization: false,
});
`;

/** Read once, at the first request for them. */
const assets = new Map<string, { type: string; body: () => string }>([
  [
    "swagger-ui.css",
    { type: "text/css", body: () => readFileSync(join(swaggerUi, "swagger-ui.css"), "utf8") },
  ],
  [
    "swagger-ui-bundle.js",
    {
      type: "text/javascript",
      body: () => readFileSync(join(swaggerUi, "swagger-ui-bundle.js"), "utf8"),
    },
  ],
  ["reference.js", { type: "text/javascript", body: () => START }],
]);
const loaded = new Map<string, string>();

/** Built at the first request for it: the route groups it describes include this one. */
let document: string | undefined;

apiDocRoutes.routes.get("/v1/openapi.json", (c) => {
  document ??= JSON.stringify(openApiDocument());
  return c.body(document, 200, { "Content-Type": "application/json" });
});
/**
 * The page runs only the scripts it serves itself, and reaches only this API: an injection into
 * the reference (a hostile description, say) runs nothing and sends nothing elsewhere. Swagger UI
 * sets inline styles and draws its icons as data: images.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

apiDocRoutes.routes.get("/docs", (c) =>
  c.html(PAGE, 200, { "Content-Security-Policy": CONTENT_SECURITY_POLICY }),
);
apiDocRoutes.routes.get("/docs/:asset", (c) => {
  const name = c.req.param("asset");
  const asset = assets.get(name);
  if (!asset) return c.notFound();
  if (!loaded.has(name)) loaded.set(name, asset.body());
  return c.body(loaded.get(name) ?? "", 200, {
    "Content-Type": `${asset.type}; charset=utf-8`,
    "Cache-Control": "public, max-age=86400",
  });
});
