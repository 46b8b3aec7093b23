import { fileURLToPath } from "node:url";
import { findFreePort } from "../devStack/findFreePort.ts";
import { spawnService, waitUntilReady } from "../devStack/spawnService.ts";
import type { Cleanup } from "./runBenchmark.ts";

/** bench/helloServer.ts as a process of its own: the framework's ceiling; stopped by `cleanup`. */
export async function startHelloServer(cleanup: Cleanup): Promise<{ url: string }> {
  const port = await findFreePort();
  const script = fileURLToPath(new URL("./helloServer.ts", import.meta.url));
  const { child, service } = spawnService(process.execPath, [script], {
    env: { ...process.env, PORT: String(port) },
    onOutput: process.env.STACK_VERBOSE ? (line) => process.stderr.write(line) : undefined,
  });
  cleanup.add("hello-world server", () => service.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady("hello-world server", () => fetch(url), { child });
  return { url };
}
