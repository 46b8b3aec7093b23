import { ServiceClient } from "@service/sdk";
import { type ReactNode, useCallback, useMemo, useState } from "react";
import { useConfig, useConnection } from "wagmi";
import { signMessage } from "wagmi/actions";
import { SessionContext } from "./SessionContext.tsx";

/**
 * A ServiceClient for the connected wallet. The SDK signs in with the challenge flow and renews the
 * JWT before it expires; the token lives in the client's memory only, gone with the page.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const wagmiConfig = useConfig();
  const { address } = useConnection();
  const [signedInAs, setSignedInAs] = useState<string>();

  const client = useMemo(
    () =>
      address
        ? new ServiceClient({
            baseUrl: window.location.origin,
            account: {
              address,
              signMessage: ({ message }: { message: string }) =>
                signMessage(wagmiConfig, { account: address, message }),
            },
          })
        : undefined,
    [address, wagmiConfig],
  );

  const signIn = useCallback(async () => {
    if (!client || !address) return;
    // Any authenticated call signs in first; this one is the cheapest.
    await client.credentials.list({ limit: 1 });
    setSignedInAs(address);
  }, [client, address]);

  const value = useMemo(
    () => ({ client, address, signedIn: !!address && signedInAs === address, signIn }),
    [client, address, signedInAs, signIn],
  );
  return <SessionContext value={value}>{children}</SessionContext>;
}
