import type { ServiceClient } from "@service/sdk";
import { createContext, useContext } from "react";
import type { Address } from "viem";

export type Session = {
  /** The connected wallet's client; undefined while no wallet is connected. */
  client: ServiceClient | undefined;
  address: Address | undefined;
  signedIn: boolean;
  signIn: () => Promise<void>;
};

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside SessionProvider");
  return session;
}

/** The signed-in wallet's client: pages that need one render only behind `RequireSignIn`. */
export function useClient(): ServiceClient {
  const { client } = useSession();
  if (!client) throw new Error("useClient needs a connected wallet");
  return client;
}
