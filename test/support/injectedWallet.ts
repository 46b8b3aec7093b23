// An EIP-1193 wallet injected into a page as `window.ethereum`, the way a browser extension is: the
// page's requests cross to Node (page.exposeFunction), where a viem account signs messages and
// transactions and anvil answers the rest.
import type { Page } from "playwright-core";
import {
  createPublicClient,
  createWalletClient,
  type Hex,
  hexToString,
  http,
  type PrivateKeyAccount,
  toHex,
} from "viem";
import { anvil } from "viem/chains";

type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/**
 * `onChainId`: the chain the wallet starts on (anvil's by default); it switches when asked.
 * `onTransaction`: told each transaction's hash as the wallet sends it.
 * `onSign`: told each message the wallet signs, as text.
 */
export async function injectWallet(
  page: Page,
  account: PrivateKeyAccount,
  rpcUrl: string,
  {
    onChainId = anvil.id,
    onTransaction,
    onSign,
  }: {
    onChainId?: number;
    onTransaction?: (hash: Hex) => void;
    onSign?: (message: string) => void;
  } = {},
) {
  const chain = { ...anvil, rpcUrls: { default: { http: [rpcUrl] } } };
  let chainId = onChainId;
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const node = createPublicClient({ chain, transport: http(rpcUrl) });

  async function answer(method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return [account.address];
      case "eth_chainId":
        return toHex(chainId);
      case "wallet_requestPermissions":
      case "wallet_getPermissions":
        return [{ parentCapability: "eth_accounts" }];
      case "wallet_switchEthereumChain":
        chainId = Number((params[0] as { chainId: Hex }).chainId);
        return null;
      case "wallet_addEthereumChain":
        return null;
      case "personal_sign":
        onSign?.(hexToString(params[0] as Hex));
        return account.signMessage({ message: { raw: params[0] as Hex } });
      case "eth_sendTransaction": {
        const [tx] = params as [{ to: Hex; data?: Hex; value?: Hex; gas?: Hex }];
        const hash = await wallet.sendTransaction({
          to: tx.to,
          data: tx.data,
          value: tx.value ? BigInt(tx.value) : undefined,
          gas: tx.gas ? BigInt(tx.gas) : undefined,
        });
        onTransaction?.(hash);
        return hash;
      }
      default:
        return node.request({ method, params } as never);
    }
  }

  await page.exposeFunction(
    "__injectedWalletRequest",
    async (method: string, params: unknown[]): Promise<Answer> => {
      try {
        return { result: await answer(method, params) };
      } catch (error) {
        // The node's error as JSON-RPC gives it, revert data included, for viem in the page to decode.
        const cause = error as {
          code?: number;
          shortMessage?: string;
          message: string;
          data?: unknown;
        };
        const rpc = (error as { walk?: (fn: (e: unknown) => boolean) => unknown }).walk?.(
          (inner) => typeof (inner as { code?: unknown }).code === "number",
        ) as typeof cause | undefined;
        const source = rpc ?? cause;
        return {
          error: {
            code: source.code ?? -32603,
            message: source.shortMessage ?? source.message,
            data: source.data,
          },
        };
      }
    },
  );
  await page.addInitScript(() => {
    type Request = { method: string; params?: unknown[] };
    const bridge = (globalThis as unknown as Record<string, unknown>).__injectedWalletRequest as (
      method: string,
      params: unknown[],
    ) => Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>;
    const listeners = new Map<string, Set<(value: unknown) => void>>();
    (globalThis as unknown as { ethereum: unknown }).ethereum = {
      async request({ method, params }: Request) {
        const answered = await bridge(method, params ?? []);
        if (answered.error) throw Object.assign(new Error(answered.error.message), answered.error);
        if (method === "wallet_switchEthereumChain") {
          const { chainId } = (params as [{ chainId: string }])[0];
          for (const listener of listeners.get("chainChanged") ?? []) listener(chainId);
        }
        return answered.result;
      },
      on(event: string, listener: (value: unknown) => void) {
        listeners.set(event, (listeners.get(event) ?? new Set()).add(listener));
      },
      removeListener(event: string, listener: (value: unknown) => void) {
        listeners.get(event)?.delete(listener);
      },
    };
  });
}
