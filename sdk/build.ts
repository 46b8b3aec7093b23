// Builds dist/: one ESM bundle for every runtime (Node ≥ 18, browsers, Deno, Bun) and its type
// declarations. Run: npm run build
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const here = new URL(".", import.meta.url).pathname;
rmSync(`${here}dist`, { recursive: true, force: true });
await build({
  entryPoints: [`${here}src/index.ts`],
  outfile: `${here}dist/index.js`,
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  sourcemap: true,
  legalComments: "inline",
});
execFileSync("npx", ["tsc", "-p", `${here}tsconfig.json`], { stdio: "inherit" });

// The declarations import each other as the sources do (`./x.ts`); published, they are `./x.js`.
for (const file of readdirSync(`${here}dist`).filter((name) => name.endsWith(".d.ts"))) {
  const path = `${here}dist/${file}`;
  writeFileSync(path, readFileSync(path, "utf8").replace(/(from "\.\/[\w.]+)\.ts"/g, '$1.js"'));
}
