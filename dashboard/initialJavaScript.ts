// The JavaScript a first visit loads before the dashboard can render: the entry chunk and every chunk
// it imports statically. Lazy chunks load later and do not count.
import { gzipSync } from "node:zlib";
import type { Plugin, Rolldown } from "vite";

/** The budget for the initial JavaScript, gzip-compressed. */
export const INITIAL_JAVASCRIPT_BUDGET_BYTES = 300 * 1024;

type Output = Rolldown.OutputBundle | Rolldown.RolldownOutput["output"];

export function initialJavaScriptGzipBytes(output: Output): number {
  const chunks = new Map<string, Rolldown.OutputChunk>();
  for (const file of Object.values(output)) {
    if (file.type === "chunk") chunks.set(file.fileName, file);
  }
  const initial = new Set<string>();
  const visit = (fileName: string) => {
    if (initial.has(fileName)) return;
    initial.add(fileName);
    for (const imported of chunks.get(fileName)?.imports ?? []) visit(imported);
  };
  for (const chunk of chunks.values()) if (chunk.isEntry) visit(chunk.fileName);
  let bytes = 0;
  for (const fileName of initial) bytes += gzipSync(chunks.get(fileName)?.code ?? "").length;
  return bytes;
}

/** Prints the initial JavaScript's size against its budget at the end of every build. */
export function reportInitialJavaScript(): Plugin {
  return {
    name: "report-initial-javascript",
    apply: "build",
    generateBundle(_options, bundle) {
      const bytes = initialJavaScriptGzipBytes(bundle);
      const kilobytes = (value: number) => `${(value / 1024).toFixed(1)} KB`;
      this.info(
        `initial JavaScript ${kilobytes(bytes)} gzip (budget ${kilobytes(INITIAL_JAVASCRIPT_BUDGET_BYTES)})`,
      );
    },
  };
}
