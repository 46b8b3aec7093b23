// The dashboard built by Vite, as `npm start` builds it, into a directory of a test's choosing.
import { fileURLToPath } from "node:url";
import { build, type Rolldown } from "vite";

const root = fileURLToPath(new URL("../../dashboard", import.meta.url));

export async function buildDashboard(outDir: string): Promise<Rolldown.RolldownOutput> {
  // Vite keeps a NODE_ENV already set, and vitest sets "test": React would build for development.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  const output = await build({
    root,
    configFile: `${root}/vite.config.ts`,
    logLevel: "warn",
    build: { outDir, emptyOutDir: true },
  }).finally(() => {
    process.env.NODE_ENV = nodeEnv;
  });
  return (Array.isArray(output) ? output[0] : output) as Rolldown.RolldownOutput;
}
