import { lazy, Suspense } from "react";
import { useConnection } from "wagmi";
import { ApiKeysPage } from "./pages/ApiKeysPage.tsx";
import { CataloguePage } from "./pages/CataloguePage.tsx";
import { CredentialsPage } from "./pages/CredentialsPage.tsx";
import { ListingPage } from "./pages/ListingPage.tsx";
import { PlaygroundPage } from "./pages/PlaygroundPage.tsx";
import { RunsPage } from "./pages/RunsPage.tsx";
import { Link } from "./routing/Link.tsx";
import { type Route, routeOf, useLocationKey } from "./routing/router.ts";
import { Loading } from "./ui/Loading.tsx";
import { RequireSignIn } from "./wallet/RequireSignIn.tsx";
import { WalletPanel } from "./wallet/WalletPanel.tsx";

// Creator views load when first opened: most visitors rent.
const RegisterPage = lazy(() =>
  import("./pages/RegisterPage.tsx").then((module) => ({ default: module.RegisterPage })),
);
const MyListingsPage = lazy(() =>
  import("./pages/MyListingsPage.tsx").then((module) => ({ default: module.MyListingsPage })),
);
const NewVersionPage = lazy(() =>
  import("./pages/NewVersionPage.tsx").then((module) => ({ default: module.NewVersionPage })),
);
// A run's page checks its receipt against the chain: loaded when first opened.
const RunPage = lazy(() =>
  import("./pages/RunPage.tsx").then((module) => ({ default: module.RunPage })),
);

const NAVIGATION = [
  { href: "/", label: "Catalogue", page: "catalogue" },
  { href: "/credentials", label: "My credentials", page: "credentials" },
  { href: "/playground", label: "Playground", page: "playground" },
  { href: "/runs", label: "Runs", page: "runs" },
  { href: "/api-keys", label: "API keys", page: "api-keys" },
  { href: "/register", label: "Register an agent", page: "register" },
  { href: "/my-listings", label: "My listings", page: "my-listings" },
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
                <Link
                  href={item.href}
                  aria-current={sectionOf(route) === item.page ? "page" : undefined}
                >
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
          <Suspense fallback={<Loading label="Loading the page" />}>
            <Page route={route} />
          </Suspense>
        </RequireSignIn>
      </main>
    </>
  );
}

/** The navigation entry a page belongs to: a run's page is in Runs. */
const sectionOf = (route: Route) => (route.page === "run" ? "runs" : route.page);

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
    case "my-listings":
      return <MyListingsPage />;
    case "new-version":
      return <NewVersionPage key={route.listingId} listingId={route.listingId} />;
    case "runs":
      return <RunsPage />;
    case "run":
      return <RunPage key={route.runId} runId={route.runId} />;
    default:
      return <CataloguePage />;
  }
}
