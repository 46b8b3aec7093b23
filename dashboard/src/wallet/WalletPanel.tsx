import { useConnect, useConnection, useConnectors, useDisconnect } from "wagmi";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";

/** Connects an injected EIP-1193 wallet or, on the local chain, anvil's public dev account. */
export function WalletPanel() {
  const { address, status } = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();

  if (address) {
    return (
      <div className="wallet">
        <span title={address}>
          Wallet <code>{`${address.slice(0, 6)}…${address.slice(-4)}`}</code>
        </span>
        <button type="button" onClick={() => disconnect.mutate()}>
          Disconnect
        </button>
      </div>
    );
  }
  return (
    <div className="wallet">
      {connectors.map((connector) => (
        <button
          type="button"
          key={connector.uid}
          disabled={status === "connecting"}
          onClick={() => connect.mutate({ connector })}
        >
          {connector.type === "mock"
            ? "Use anvil dev account (public key, local chain only)"
            : `Connect ${connector.name === "Injected" ? "browser wallet" : connector.name}`}
        </button>
      ))}
      <ErrorMessage error={connect.error} />
    </div>
  );
}
