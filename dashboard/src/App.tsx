import { useConnection } from "wagmi";
import { ApiKeysPage } from "./pages/ApiKeysPage.tsx";
import { CataloguePage } from "./pages/CataloguePage.tsx";
import { CredentialsPage } from "./pages/CredentialsPage.tsx";
import { ListingPage } from "./pages/ListingPage.tsx";
import { PlaygroundPage } from "./pages/PlaygroundPage.tsx";
import { RegisterPage } from "./pages/RegisterPage.tsx";
import { Link } from "./routing/Link.tsx";
import { type Route, routeOf, useLocationKey } from "./routing/router.ts";
import { RequireSignIn } from "./wallet/RequireSignIn.tsx";
import { WalletPanel } from "./wallet/WalletPanel.tsx";

const NAVIGATION = [
  { href: "/", label: "Catalogue", page: "catalogue" },
  { href: "/credentials", label: "My credentials", page: "credentials" },
  { href: "/playground", label: "Playground", page: "playground" },
  { href: "/api-keys", label: "API keys", page: "api-keys" },
  { href: "/register", label: "Register an agent", page: "register" },
] as const;

export function App() {
  useLocationKey();
  // Until a wallet is connected, the page itself offers the ways to connect one.
  const { address } = useConnection();
  const route = routeOf(window.location);
  return (
    <>
      <header className="top">
        <p className="brand">Agent rental marketplace</p>
        <nav aria-label="Main">
          <ul>
            {NAVIGATION.map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={route.page === item.page ? "page" : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        {address && <WalletPanel />}
      </header>
      <main>
        <RequireSignIn>
          <Page route={route} />
        </RequireSignIn>
      </main>
    </>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "listing":
      return <ListingPage key={route.listingId} listingId={route.listingId} />;
    case "credentials":
      return <CredentialsPage />;
    case "playground":
      return <PlaygroundPage key={route.agentId} agentId={route.agentId} />;
    case "api-keys":
      return <ApiKeysPage />;
    case "register":
      return <RegisterPage />;
    default:
      return <CataloguePage />;
  }
}
