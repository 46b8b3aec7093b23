import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { WagmiProvider } from "wagmi";
import { App } from "./App.tsx";
import { ConfigContext } from "./config/ConfigContext.tsx";
import { loadConfig } from "./config/loadConfig.ts";
import { SessionProvider } from "./session/SessionProvider.tsx";
import "./styles.css";
import { createWagmiConfig } from "./wallet/createWagmiConfig.ts";

const root = createRoot(document.getElementById("root") as HTMLElement);

loadConfig().then(
  (config) => {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    root.render(
      <StrictMode>
        <ConfigContext value={config}>
          <WagmiProvider config={createWagmiConfig(config)}>
            <QueryClientProvider client={queryClient}>
              <SessionProvider>
                <App />
              </SessionProvider>
            </QueryClientProvider>
          </WagmiProvider>
        </ConfigContext>
      </StrictMode>,
    );
  },
  (error: Error) => {
    root.render(<p role="alert">{error.message}</p>);
  },
);
