import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { reportInitialJavaScript } from "./initialJavaScript.ts";

/** The API the dev server forwards to: a running stack (`npm start`). */
const apiUrl = process.env.API_URL ?? "http://127.0.0.1:8080";

// The dashboard calls the API on its own origin: served by the API in production, proxied here in
// development, so the same build works behind any host name.
export default defineConfig({
  plugins: [react(), reportInitialJavaScript()],
  resolve: {
    alias: { "@service/sdk": fileURLToPath(new URL("../sdk/src/index.ts", import.meta.url)) },
  },
  server: {
    proxy: { "/v1": apiUrl, "/dashboard/config.json": apiUrl },
  },
  // The budget that matters is the initial JavaScript's, gzip-compressed (initialJavaScript.ts).
  build: { chunkSizeWarningLimit: 1000 },
});
