// Builds dist/: the same bundle as ESM (index.js, for `import`, browsers, Deno and Bun) and CommonJS
// (index.cjs, for `require`), each with its type declarations. Run: npm run build
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const here = new URL(".", import.meta.url).pathname;
rmSync(`${here}dist`, { recursive: true, force: true });
for (const [format, outfile] of [
  ["esm", "index.js"],
  ["cjs", "index.cjs"],
] as const) {
  await build({
    entryPoints: [`${here}src/index.ts`],
    outfile: `${here}dist/${outfile}`,
    bundle: true,
    format,
    platform: "neutral",
    target: "es2022",
    sourcemap: true,
    legalComments: "inline",
  });
}
execFileSync("npx", ["tsc", "-p", `${here}tsconfig.json`], { stdio: "inherit" });

// The declarations import each other as the sources do (`./x.ts`); published, they are `./x.js`, and
// beside each a `.d.cts` twin importing `./x.cjs`, so that `require` gets CommonJS types.
for (const file of readdirSync(`${here}dist`).filter((name) => name.endsWith(".d.ts"))) {
  const path = `${here}dist/${file}`;
  const text = readFileSync(path, "utf8");
  writeFileSync(path, text.replace(/(from "\.\/[\w.]+)\.ts"/g, '$1.js"'));
  writeFileSync(
    path.replace(/\.d\.ts$/, ".d.cts"),
    text.replace(/(from "\.\/[\w.]+)\.ts"/g, '$1.cjs"'),
  );
}
