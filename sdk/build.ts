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
  const { metafile } = await build({
    entryPoints: [`${here}src/index.ts`],
    outfile: `${here}dist/${outfile}`,
    bundle: true,
    format,
    platform: "neutral",
    target: "es2022",
    sourcemap: true,
    legalComments: "inline",
    metafile: true,
    // viem's WebSocket transport, which the SDK never uses, is the one part of viem that needs Node's
    // `ws`: left unresolved, and dropped with the rest of what the SDK does not use.
    external: ["isows"],
  });
  // The bundle carries what it uses of its dependencies (viem's hashing, typed data and signature
  // recovery among them), so that it runs where none of them is installed.
  const imported = Object.values(metafile.outputs).flatMap((output) => output.imports);
  if (imported.length > 0) {
    throw new Error(`dist/${outfile} imports ${imported.map(({ path }) => path).join(", ")}`);
  }
}
execFileSync("npx", ["tsc", "-p", `${here}tsconfig.json`], { stdio: "inherit" });

// The declarations import each other as the sources do (`./x.ts`, `../x.ts`); published, they are
// `./x.js`, and beside each a `.d.cts` twin importing `./x.cjs`, so that `require` gets CommonJS types.
const relativeImport = /((?:from |import\()"\.\.?\/[\w./]+)\.ts"/g;
const declarations = readdirSync(`${here}dist`, { recursive: true, encoding: "utf8" }).filter(
  (name) => name.endsWith(".d.ts"),
);
for (const file of declarations) {
  const path = `${here}dist/${file}`;
  const text = readFileSync(path, "utf8");
  writeFileSync(path, text.replace(relativeImport, '$1.js"'));
  writeFileSync(path.replace(/\.d\.ts$/, ".d.cts"), text.replace(relativeImport, '$1.cjs"'));
}
