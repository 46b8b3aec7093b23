// A service's stop() resolves only once everything it printed has been passed on, its last words
// on the way out included: a scan of the output after stop() (test/support/useStack.ts) misses none.
import { describe, expect, it } from "vitest";
import { spawnService } from "../../devStack/spawnService.ts";

/** Says it is ready, then on SIGTERM prints a long goodbye, the last line unended, and ends. */
const SERVICE = `
const alive = setInterval(() => {}, 1000);
process.on("SIGTERM", () => {
  clearInterval(alive);
  for (let line = 0; line < 2000; line++) process.stdout.write(\`goodbye \${line} \${"x".repeat(100)}\\n\`);
  process.stdout.write("last words");
});
process.stdout.write("ready\\n");
`;

describe("a stopped service's output", () => {
  it("is passed on in full before stop() resolves", async () => {
    for (let round = 0; round < 5; round++) {
      const lines: string[] = [];
      const { service } = spawnService(process.execPath, ["-e", SERVICE], {
        onOutput: (line) => lines.push(line),
      });
      const deadline = Date.now() + 10_000;
      while (!lines.includes("ready\n") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await service.stop();
      expect(lines).toHaveLength(2002);
      expect(lines.at(-1)).toBe("last words\n");
    }
  });
});
