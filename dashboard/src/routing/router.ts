import { useSyncExternalStore } from "react";

/** The dashboard's pages by path; anything else is the catalogue. */
export type Route =
  | { page: "catalogue" }
  | { page: "listing"; listingId: string }
  | { page: "credentials" }
  | { page: "playground"; agentId: string | null }
  | { page: "api-keys" }
  | { page: "register" }
  | { page: "my-listings" }
  | { page: "new-version"; listingId: string }
  | { page: "runs" }
  | { page: "run"; runId: string };

export function routeOf(location: Location): Route {
  const path = location.pathname;
  const listing = /^\/listings\/([^/]+)$/.exec(path);
  if (listing?.[1]) return { page: "listing", listingId: decodeURIComponent(listing[1]) };
  if (path === "/credentials") return { page: "credentials" };
  if (path === "/playground") {
    return { page: "playground", agentId: new URLSearchParams(location.search).get("agent") };
  }
  if (path === "/api-keys") return { page: "api-keys" };
  const newVersion = /^\/my-listings\/([^/]+)\/new-version$/.exec(path);
  if (newVersion?.[1]) {
    return { page: "new-version", listingId: decodeURIComponent(newVersion[1]) };
  }
  if (path === "/runs") return { page: "runs" };
  const run = /^\/runs\/([^/]+)$/.exec(path);
  if (run?.[1]) return { page: "run", runId: decodeURIComponent(run[1]) };
  if (path === "/register") return { page: "register" };
  if (path === "/my-listings") return { page: "my-listings" };
  return { page: "catalogue" };
}

const NAVIGATED = "dashboard:navigated";

/** Whether the next page heading to show takes the focus: after a navigation or a sign-in. */
let headingFocusPending = false;
window.addEventListener("popstate", () => {
  headingFocusPending = true;
});

/** The next page heading shown takes the focus. */
export function focusNextHeading() {
  headingFocusPending = true;
}

/** True once after `focusNextHeading` or a navigation: the heading asking takes the focus. */
export function takeHeadingFocus(): boolean {
  const pending = headingFocusPending;
  headingFocusPending = false;
  return pending;
}

export function navigate(href: string) {
  focusNextHeading();
  window.history.pushState(null, "", href);
  window.dispatchEvent(new Event(NAVIGATED));
  window.scrollTo(0, 0);
}

function subscribe(onChange: () => void) {
  window.addEventListener("popstate", onChange);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(NAVIGATED, onChange);
  };
}

/** The current path and query, as a string so React compares it by value. */
export function useLocationKey(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname + window.location.search);
}
