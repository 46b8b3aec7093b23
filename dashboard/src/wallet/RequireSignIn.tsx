import { type ReactNode, useState } from "react";
import { useConnection, useSwitchChain } from "wagmi";
import { useDashboardConfig } from "../config/ConfigContext.tsx";
import { focusNextHeading } from "../routing/router.ts";
import { useSession } from "../session/SessionContext.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { PageHeading } from "../ui/PageHeading.tsx";
import { WalletPanel } from "./WalletPanel.tsx";

/** Renders `children` once a wallet is connected, on the marketplace's chain, and signed in. */
export function RequireSignIn({ children }: { children: ReactNode }) {
  const { chain_id } = useDashboardConfig();
  const { chainId } = useConnection();
  const { address, signedIn, signIn } = useSession();
  const switchChain = useSwitchChain();
  const [signing, setSigning] = useState(false);
  const [error, setError] = useState<unknown>();

  if (!address) {
    return (
      <section className="gate" aria-labelledby="gate-title">
        <PageHeading id="gate-title" title="Connect a wallet" />
        <p>The marketplace knows you by your wallet: connect one to continue.</p>
        <WalletPanel />
      </section>
    );
  }
  if (chainId !== chain_id) {
    return (
      <section className="gate" aria-labelledby="gate-title">
        <PageHeading id="gate-title" title="Wrong network" />
        <p>
          Your wallet is on chain {chainId}; the marketplace is on chain {chain_id}.
        </p>
        <button type="button" onClick={() => switchChain.mutate({ chainId: chain_id })}>
          Switch to chain {chain_id}
        </button>
        <ErrorMessage error={switchChain.error} />
      </section>
    );
  }
  if (!signedIn) {
    const onSignIn = async () => {
      setSigning(true);
      setError(undefined);
      try {
        // The page shown once signed in takes the focus from the button that goes away.
        focusNextHeading();
        await signIn();
      } catch (caught) {
        setError(caught);
      } finally {
        setSigning(false);
      }
    };
    return (
      <section className="gate" aria-labelledby="gate-title">
        <PageHeading id="gate-title" title="Sign in" />
        <p>Sign a one-time message with your wallet to prove it is yours. It costs nothing.</p>
        <button type="button" onClick={onSignIn} disabled={signing}>
          {signing ? "Waiting for your signature…" : "Sign in with wallet"}
        </button>
        <ErrorMessage error={error} />
      </section>
    );
  }
  return children;
}
